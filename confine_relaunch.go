// The handoff of a relaunch. A binary that cannot restrict all its
// threads at once restricts one, then executes itself again from it
// (confine_relaunch_linux.go), so that every thread of the new image
// starts inside; that image can read nothing it was not granted, so the
// process that relaunched it (its launcher) hands over what it read and
// bound at start-up: the secret variables takeSecrets took, the secret
// files the flags name, the listeners, and what it did that the new image
// cannot see (why it relaunched, the inherited descriptors it closed).
// They travel through a pipe whose reading end the new image inherits,
// named by envHandoff. The variable proves nothing: the new image checks
// with the kernel that it is confined before it serves
// (checkRelaunched).
//
// Spec: none; execve(2) keeps descriptors without close-on-exec, and
// Landlock domains, no_new_privs and seccomp filters across it.

package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// maxHandoffBytes bounds a handoff: three secret files of at most
// maxSecretFileBytes each, two variables, the listeners and a list of
// descriptors hold far less. It is also the pipe's size, which the
// launcher fills before it executes anything that reads it.
const maxHandoffBytes = 1 << 20

// handoffMagic opens a handoff, with its format's version.
const handoffMagic = "baremcp handoff 1\n"

// handoff is what a launcher hands a relaunched image.
type handoff struct {
	why       string            // why the launcher relaunched (relaunchReason)
	env       map[string]string // secret variable → value (takeSecrets)
	files     map[string]string // flag → handedSecretFile
	listeners map[string]int    // flag (-http, -metrics) → inherited descriptor
	closed    []string          // the inherited descriptors the launcher closed
}

// The record tags of a handoff.
const (
	handoffWhy      = 'w'
	handoffEnv      = 'e'
	handoffFile     = 'f'
	handoffListener = 'l'
	handoffClosed   = 'c'
)

// encode writes h: the magic, then records of a tag, a key and a value,
// each string preceded by its length (uvarint).
func (h *handoff) encode() []byte {
	b := []byte(handoffMagic)
	rec := func(tag byte, key, value string) {
		b = append(b, tag)
		b = binary.AppendUvarint(b, uint64(len(key)))
		b = append(b, key...)
		b = binary.AppendUvarint(b, uint64(len(value)))
		b = append(b, value...)
	}
	rec(handoffWhy, "", h.why)
	for _, k := range slices.Sorted(maps.Keys(h.env)) {
		rec(handoffEnv, k, h.env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(h.files)) {
		rec(handoffFile, k, h.files[k])
	}
	for _, k := range slices.Sorted(maps.Keys(h.listeners)) {
		rec(handoffListener, k, strconv.Itoa(h.listeners[k]))
	}
	for _, c := range h.closed {
		rec(handoffClosed, "", c)
	}
	return b
}

// decodeHandoff reads what encode wrote, and refuses anything else: a
// bad magic, an unknown tag, a length past the end, a key given twice, a
// listener that is not a descriptor above standard error.
// TestHandoffRoundTrip, FuzzDecodeHandoff.
func decodeHandoff(b []byte) (*handoff, error) {
	rest, ok := bytes.CutPrefix(b, []byte(handoffMagic))
	if !ok {
		return nil, errors.New("handoff: not a handoff")
	}
	h := &handoff{env: map[string]string{}, files: map[string]string{}, listeners: map[string]int{}}
	str := func() (string, error) {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return "", errors.New("handoff: truncated")
		}
		s := string(rest[w : w+int(n)])
		rest = rest[w+int(n):]
		return s, nil
	}
	seenWhy := false
	for len(rest) > 0 {
		tag := rest[0]
		rest = rest[1:]
		key, err := str()
		if err != nil {
			return nil, err
		}
		value, err := str()
		if err != nil {
			return nil, err
		}
		dup := false
		switch tag {
		case handoffWhy:
			dup, seenWhy, h.why = seenWhy, true, value
		case handoffEnv:
			_, dup = h.env[key]
			h.env[key] = value
		case handoffFile:
			_, dup = h.files[key]
			h.files[key] = value
		case handoffListener:
			fd, err := strconv.Atoi(value)
			if err != nil || fd <= 2 {
				return nil, fmt.Errorf("handoff: listener %q is no descriptor", key)
			}
			_, dup = h.listeners[key]
			h.listeners[key] = fd
		case handoffClosed:
			h.closed = append(h.closed, value)
		default:
			return nil, fmt.Errorf("handoff: unknown record %q", tag)
		}
		if dup {
			return nil, fmt.Errorf("handoff: %q given twice", key)
		}
	}
	if !seenWhy {
		return nil, errors.New("handoff: no reason given")
	}
	return h, nil
}

// getenv returns next with what h hands over in front: the secret
// variables, and each secret file under secretFileKey.
func (h *handoff) getenv(next func(string) string) func(string) string {
	return func(name string) string {
		if v, ok := h.env[name]; ok {
			return v
		}
		if flagName, ok := strings.CutPrefix(name, "="); ok {
			return h.files[flagName]
		}
		return next(name)
	}
}
