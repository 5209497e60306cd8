// What a declared program needs to start, and nothing more: the loader
// its ELF header names (PT_INTERP), which the kernel executes, and the
// shared libraries that loader maps (DT_NEEDED, transitively), which it
// reads; a script's interpreter (#!) and, in turn, what that needs. The
// confined process is granted these, not all of /lib and /usr/lib.
//
// Spec: the System V ABI, "Program Header" (PT_INTERP) and "Dynamic
// Section" (DT_NEEDED, DT_RPATH, DT_RUNPATH, $ORIGIN),
// https://refspecs.linuxbase.org/elf/gabi4+/ch5.dynamic.html; the
// loader's search order, ld.so(8); ld.so.cache's format, glibc's
// elf/cache.c and sysdeps/generic/dl-cache.h.

package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ldCachePath is glibc's cache of the libraries in the system's
// directories, which its loader reads before looking anywhere else.
const ldCachePath = "/etc/ld.so.cache"

// libraryDirs are where a loader looks when its cache does not name a
// library (musl has no cache): glibc's default directories, with the
// Debian multiarch ones, and musl's.
var libraryDirs = []string{
	"/lib64", "/usr/lib64",
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
	"/lib", "/usr/lib", "/usr/local/lib",
}

// maxProgramLibraries bounds the libraries followed for one plan: a
// program needs tens (git 10, python 20); thousands would be a loop or a
// hostile file the checks below missed.
const maxProgramLibraries = 1024

// programStart works out what running programs needs; one per plan,
// so that each library is read once.
type programStart struct {
	ldPath  []string            // LD_LIBRARY_PATH at start, which children inherit
	cache   map[string][]string // ld.so.cache: library name → paths; nil without one
	grants  []grant
	seen    map[string]bool // files already looked at
	dynamic []string        // the declared programs that need a loader
}

// newProgramStart reads the loader's cache and LD_LIBRARY_PATH.
func newProgramStart(getenv func(string) string) *programStart {
	ps := &programStart{seen: map[string]bool{}}
	for _, dir := range filepath.SplitList(getenv("LD_LIBRARY_PATH")) {
		if filepath.IsAbs(dir) {
			ps.ldPath = append(ps.ldPath, dir)
		}
	}
	if b, err := os.ReadFile(ldCachePath); err == nil {
		ps.cache = parseLDCache(b)
	}
	return ps
}

// add works out what the program path, which the start-up line calls
// name, needs to start: its loader and libraries when it is a
// dynamically linked ELF file, its interpreter when it is a script. A
// file that is neither, or cannot be read, needs nothing more (the
// kernel refuses it, or it is static).
func (ps *programStart) add(path, name string) {
	ps.program(path, name, 0)
}

// program is add for a program reached through declared (a script's
// interpreter, depth levels down).
func (ps *programStart) program(path, declared string, depth int) {
	if ps.seen[path] || depth > 4 { // the kernel follows 4 levels of interpreters (BINPRM_MAX_RECURSION)
		return
	}
	ps.seen[path] = true
	if interp, ok := scriptInterpreter(path); ok {
		ps.grants = append(ps.grants, grant{kind: grantRun, path: interp, from: "interpreter of " + declared, optional: true})
		ps.program(interp, declared, depth+1)
		return
	}
	f, err := elf.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	var interp string
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, min(p.Filesz, 4096))
			if _, err := p.ReadAt(b, 0); err == nil {
				interp = string(bytes.TrimRight(b, "\x00"))
			}
		}
	}
	if interp == "" {
		return // statically linked: the kernel maps it whole
	}
	ps.dynamic = append(ps.dynamic, declared)
	ps.grants = append(ps.grants, grant{kind: grantRun, path: interp, from: "loader of " + declared, optional: true})
	ps.libraries(f, path, "libraries of "+declared)
}

// libraries grants, transitively, what obj (the file at path) needs,
// found as obj's loader would find it: its RPATH (unless it has a
// RUNPATH), LD_LIBRARY_PATH, its RUNPATH, the cache, the default
// directories ($ORIGIN is obj's directory).
func (ps *programStart) libraries(obj *elf.File, path, from string) {
	if len(ps.seen) > maxProgramLibraries {
		return
	}
	needed, _ := obj.ImportedLibraries()
	rpath, _ := obj.DynString(elf.DT_RPATH)
	runpath, _ := obj.DynString(elf.DT_RUNPATH)
	origin := filepath.Dir(path)
	var dirs []string
	expand := func(list []string) {
		for _, l := range list {
			for _, d := range filepath.SplitList(l) {
				dirs = append(dirs, strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin))
			}
		}
	}
	if len(runpath) == 0 {
		expand(rpath)
	}
	dirs = append(dirs, ps.ldPath...)
	expand(runpath)
	for _, name := range needed {
		for _, lib := range ps.find(name, dirs, obj) {
			if ps.seen[lib] {
				continue
			}
			ps.seen[lib] = true
			ps.grants = append(ps.grants, grant{kind: grantRead, path: lib, from: from, optional: true})
			if f, err := elf.Open(lib); err == nil {
				ps.libraries(f, lib, from)
				f.Close()
			}
		}
	}
}

// find returns the files the library name may be loaded from for obj:
// the first directory of dirs that has one of obj's class and machine,
// else every such file the cache lists (glibc picks among them by the
// CPU's features), else the first in the default directories.
func (ps *programStart) find(name string, dirs []string, obj *elf.File) []string {
	if strings.Contains(name, "/") {
		return []string{name}
	}
	fits := func(p string) bool {
		f, err := elf.Open(p)
		if err != nil {
			return false
		}
		defer f.Close()
		return f.Class == obj.Class && f.Machine == obj.Machine
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); filepath.IsAbs(p) && fits(p) {
			return []string{p}
		}
	}
	var found []string
	for _, p := range ps.cache[name] {
		if fits(p) {
			found = append(found, p)
		}
	}
	if len(found) > 0 {
		return found
	}
	for _, d := range libraryDirs {
		if p := filepath.Join(d, name); fits(p) {
			return []string{p}
		}
	}
	return nil
}

// scriptInterpreter returns the interpreter a script's first line names
// ("#!/bin/sh -e" → "/bin/sh"), and false for any other file.
func scriptInterpreter(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b := make([]byte, 256) // the kernel reads at most 256 bytes of it (BINPRM_BUF_SIZE)
	n, _ := f.Read(b)
	line, ok := bytes.CutPrefix(b[:n], []byte("#!"))
	if !ok {
		return "", false
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return "", false
	}
	return fields[0], true
}

// ldCacheMagic opens glibc's cache format of 2.32 and later (and the new
// half of older caches, which this reader does not look for).
const ldCacheMagic = "glibc-ld.so.cache1.1"

// parseLDCache reads glibc's loader cache: a header (the magic, the
// entry count, the string table's length, flags and an extension
// offset: 48 bytes), then entries of 24 bytes (flags, the key's and the
// value's offsets from the start of the file, the OS version, hwcaps),
// then the strings. It returns library name → paths, or nil when b is
// not such a cache.
func parseLDCache(b []byte) map[string][]string {
	const header, entry = 48, 24
	if len(b) < header || string(b[:len(ldCacheMagic)]) != ldCacheMagic {
		return nil
	}
	n := int(binary.NativeEndian.Uint32(b[20:24]))
	if n < 0 || n > (len(b)-header)/entry {
		return nil
	}
	str := func(off uint32) (string, error) {
		if int(off) >= len(b) {
			return "", errors.New("offset outside the cache")
		}
		s := b[off:]
		if i := bytes.IndexByte(s, 0); i >= 0 {
			return string(s[:i]), nil
		}
		return "", errors.New("unterminated string")
	}
	cache := map[string][]string{}
	for i := range n {
		e := b[header+i*entry:]
		key, err1 := str(binary.NativeEndian.Uint32(e[4:8]))
		value, err2 := str(binary.NativeEndian.Uint32(e[8:12]))
		if err1 != nil || err2 != nil {
			return nil
		}
		cache[key] = append(cache[key], value)
	}
	return cache
}
