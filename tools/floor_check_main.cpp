// Linked with the whole archive of one floor (core/ or plan/) and only the floors below
// it (see CMakeLists.txt): it builds only while that floor calls nothing above itself.
int main() { return 0; }
