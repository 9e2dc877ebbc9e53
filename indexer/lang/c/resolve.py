"""C/C++ `#include` -> header files of the tree.

`"x.h"` is looked up beside the including file first; then (for both forms) under the
tree's include directories (every directory named `include`), then in each ancestor
directory of the includer, nearest first, up to the tree root (a project built with
`-I` at some level above the file). Only then anywhere the path ends in the spec
(`<spdlog/x.h>` in a vendored copy, `<zstd.h>` in a bundled zstd/), except for a bare
`<name>` of the C, C++ or POSIX library: `<memory.h>` found on none of those roots is
libc's, not some c/enc/memory.h deep in the tree. The includer itself is never a
candidate, except beside itself: spdlog's include/spdlog/fmt/chrono.h including
`<fmt/chrono.h>` means libfmt's header (external), not itself. Not found, `<x.h>` is
external, `"x.h"` unresolved."""

from __future__ import annotations

import posixpath
from typing import Callable, Iterator, Mapping

from indexer.model import BlobFacts, ImportSpec
from indexer.resolve.tree import EXTERNAL, UNRESOLVED, Outcome, TreePaths, join, nearest_sorted, normalize, parent

# Headers of the C standard (to C23), POSIX (those without a directory) and the C++ standard
# library, and a few platform ones: a bare `<name>` of these is never guessed by suffix.
SYSTEM_HEADERS = frozenset("""
assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h locale.h
math.h setjmp.h signal.h stdalign.h stdarg.h stdatomic.h stdbit.h stdbool.h stdckdint.h
stddef.h stdint.h stdio.h stdlib.h stdnoreturn.h string.h tgmath.h threads.h time.h
uchar.h wchar.h wctype.h
aio.h cpio.h dirent.h dlfcn.h fcntl.h fmtmsg.h fnmatch.h ftw.h glob.h grp.h iconv.h
langinfo.h libgen.h monetary.h mqueue.h ndbm.h netdb.h nl_types.h poll.h pthread.h pwd.h
regex.h sched.h search.h semaphore.h spawn.h strings.h stropts.h syslog.h tar.h termios.h
trace.h ulimit.h unistd.h utime.h utmpx.h wordexp.h
alloca.h malloc.h memory.h endian.h byteswap.h features.h getopt.h err.h execinfo.h
windows.h winsock2.h ws2tcpip.h io.h direct.h process.h conio.h intrin.h
algorithm any array atomic barrier bit bitset cassert ccomplex cctype cerrno cfenv cfloat
charconv chrono cinttypes ciso646 climits clocale cmath codecvt compare complex concepts
condition_variable coroutine csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib
cstring ctime cuchar cwchar cwctype deque exception execution expected filesystem format
forward_list fstream functional future initializer_list iomanip ios iosfwd iostream
istream iterator latch limits list locale map memory memory_resource mutex new numbers
numeric optional ostream print queue random ranges ratio regex scoped_allocator semaphore
set shared_mutex source_location span spanstream sstream stack stacktrace stdexcept
stop_token streambuf string string_view syncstream system_error thread tuple type_traits
typeindex typeinfo unordered_map unordered_set utility valarray variant vector version
""".split())


def ancestors(path: str) -> Iterator[str]:
    """Directories above a file, nearest first, ending with the root ""."""
    d = parent(path)
    while True:
        yield d
        if not d:
            return
        d = parent(d)


class CResolver:
    def __init__(self, tree: TreePaths) -> None:
        self.tree = tree
        self.include_dirs = sorted(d for d in tree.dirs if posixpath.basename(d) == "include")
        self._include_dirs = frozenset(self.include_dirs)
        # spec -> the files it names under an include dir, in path order: found once a spec from
        # the files ending so (TreePaths.ending_with, also listed once), not once an include
        # from every include dir
        self._under_include: dict[str, list[str]] = {}

    def resolve(self, importer: str, imp: ImportSpec) -> Outcome:
        spec = imp.spec.strip().strip('"<>').strip()
        if not spec:
            return UNRESOLVED
        system = imp.kind == "c_system_include"
        if not system:
            beside = normalize(join(parent(importer), spec))
            if beside is not None and beside in self.tree:
                return (beside,)
        clean = normalize(spec)
        hit = self._find(importer, clean, system) if clean else None
        if hit is not None:
            return (hit,)
        return EXTERNAL if system else UNRESOLVED

    def _find(self, importer: str, spec: str, system: bool) -> str | None:
        """The include roots in order: include dirs, ancestors, then (not for a bare
        `<name>` of the system's) any path ending in the spec; never the importer itself."""
        anywhere = self.tree.ending_with(spec)
        if spec not in self._under_include:
            self._under_include[spec] = [p for p in anywhere if p[: -len(spec) - 1] in self._include_dirs]
        hit = nearest_sorted(importer, self._under_include[spec], importer)
        if hit is not None:
            return hit
        for d in ancestors(importer):
            p = join(d, spec)
            if p in self.tree and p != importer:
                return p
        if system and spec in SYSTEM_HEADERS:
            return None
        return nearest_sorted(importer, anywhere, importer)


def make_resolver(tree: TreePaths, facts: Mapping[str, BlobFacts], read: Callable[[str], bytes]) -> CResolver:
    return CResolver(tree)
