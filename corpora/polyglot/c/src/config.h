#pragma once

#define POLY_VERSION "0.9"
