pub mod shapes;
pub mod util;

pub use crate::shapes::Shape;

pub const MAX_SIDES: usize = 12;

pub fn describe(shape: &dyn Shape) -> String {
    format!("{} with area {:.2}", shape.name(), shape.area())
}
