// Temporary entry point; the CLI helper replaces this file.
#include <cstdio>
int main() { std::puts("pairwise"); return 0; }
