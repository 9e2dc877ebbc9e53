using System;

namespace Poly
{
    public interface IGreeter
    {
        string Greet(string name);
    }

    public class Greeter : IGreeter
    {
        public string Greet(string name)
        {
            return $"Hello, {name}";
        }

        public static void Main(string[] args)
        {
            Console.WriteLine(new Greeter().Greet("ada"));
        }
    }
}
