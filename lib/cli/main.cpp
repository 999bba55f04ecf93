// The attnflow program: subcommands only parse arguments and dispatch to the library.
#include <cstdio>
int main() { std::puts("attnflow skeleton"); return 0; }
