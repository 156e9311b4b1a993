#pragma once
// Command-line front end. Exit status: 0 ok, 1 run failed (e.g. --verify
// mismatch), 2 bad input or usage (one line on stderr, nothing written).
namespace cstsim {
int cli_main(int argc, char** argv);
}
