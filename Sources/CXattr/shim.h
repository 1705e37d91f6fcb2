// Extended attributes (getxattr, setxattr, removexattr), which Swift's Glibc module leaves out.
#include <sys/xattr.h>
