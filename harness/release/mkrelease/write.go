// Writing the release folder: every file through writer, JSON from
// structs (fixed key order), hashes of what was written.

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// writer writes the release into dir; time is every timestamp it writes
// (the commit's).
type writer struct {
	dir  string
	time time.Time
}

// file writes data to name (a slash path under dir) and returns its
// SHA-256.
func (w *writer) file(name string, data []byte) (string, error) {
	path := filepath.Join(w.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// json writes v as indented JSON to name.
func (w *writer) json(name string, v any) (string, error) {
	data, err := marshal(v)
	if err != nil {
		return "", err
	}
	return w.file(name, data)
}

// marshal is v as JSON indented by two spaces, with a final newline and
// without HTML escaping (URLs and usage texts read as written).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// fileSHA256 returns the SHA-256 and size of the file at path.
func fileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// sums writes SHA256SUMS: every other file of the release, by path, in
// the format sha256sum -c reads.
func (w *writer) sums() error {
	var paths []string
	err := filepath.WalkDir(w.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(w.dir, path)
		if err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(paths)
	var b strings.Builder
	for _, p := range paths {
		sum, _, err := fileSHA256(filepath.Join(w.dir, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		b.WriteString(sum + "  " + p + "\n")
	}
	_, err = w.file("SHA256SUMS", []byte(b.String()))
	return err
}
