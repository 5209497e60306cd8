// Command callpath instruments a copy of baremcp's package for
// harness/builds/callpath.sh: every function and function literal of the
// build's Go files records, on entry and on return, the file it belongs
// to, so that the moves between files of one request can be counted in
// the order they happen. Test tooling in its own module: the server never
// links it.
//
// usage: callpath instrument SRC DST TAGS   copy SRC's build (go list -tags TAGS) to DST, instrumented
//
//	callpath moves TRACE2 TRACE3             the moves of the third call: TRACE3's minus TRACE2's, per goroutine
package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: callpath instrument SRC DST TAGS | callpath moves TRACE2 TRACE3")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "instrument":
		err = instrument(os.Args[2], os.Args[3], os.Args[4])
	case "moves":
		err = moves(os.Args[2], os.Args[3])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "callpath:", err)
		os.Exit(1)
	}
}

// instrument copies the Go files of src's build with tags into dst, each
// function body opened by a deferred hop into its file (hop, below).
func instrument(src, dst, tags string) error {
	out, err := exec.Command("go", "list", "-tags", tags, "-f", `{{join .GoFiles " "}}`, src).Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	files := strings.Fields(string(out))
	for i, name := range files {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, data, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		var at []int
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			switch fn := n.(type) {
			case *ast.FuncDecl:
				body = fn.Body
			case *ast.FuncLit:
				body = fn.Body
			}
			if body != nil {
				at = append(at, fset.Position(body.Lbrace).Offset+1)
			}
			return true
		})
		sort.Ints(at)
		var b strings.Builder
		prev := 0
		for _, off := range at {
			b.Write(data[prev:off])
			fmt.Fprintf(&b, "defer callpathHop(%d)();", i)
			prev = off
		}
		b.Write(data[prev:])
		if err := os.WriteFile(filepath.Join(dst, name), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dst, "go.mod"), mustRead(filepath.Join(src, "go.mod")), 0o644); err != nil {
		return err
	}
	var names strings.Builder
	for _, n := range files {
		fmt.Fprintf(&names, "%q,", n)
	}
	return os.WriteFile(filepath.Join(dst, "callpath_hop.go"), []byte(fmt.Sprintf(hopSource, names.String())), 0o644)
}

func mustRead(name string) []byte {
	b, err := os.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// hopSource records, for each goroutine, the file entered ("+") and the
// file returned to ("-"), one line each, to $CALLPATH_TRACE at exit...
// written as it goes, under a lock, so that an exit path needs no hook.
const hopSource = `package main

import (
	"os"
	"runtime"
	"strconv"
	"sync"
)

var callpathFiles = [...]string{%s}

var callpathMu sync.Mutex
var callpathOut *os.File
var callpathOnce sync.Once

func callpathGoid() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	s := string(buf[:n])
	s = s[len("goroutine "):]
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i]
		}
	}
	return s
}

func callpathWrite(line string) {
	callpathOnce.Do(func() {
		if p := os.Getenv("CALLPATH_TRACE"); p != "" {
			callpathOut, _ = os.Create(p)
		}
	})
	if callpathOut == nil {
		return
	}
	callpathMu.Lock()
	callpathOut.WriteString(line)
	callpathMu.Unlock()
}

func callpathHop(i int) func() {
	g := callpathGoid()
	callpathWrite(g + " + " + strconv.Itoa(i) + "\n")
	return func() { callpathWrite(g + " - " + strconv.Itoa(i) + "\n") }
}
`

// moves counts, per goroutine, the times control passes from one file to
// another: a function entered in another file than its caller's, a return
// into another file. It prints the third call's moves (TRACE3's count
// minus TRACE2's) and, for reading, the third call's sequence of files:
// TRACE3's events past TRACE2's number of events on the goroutines that
// both runs share is not well defined, so the sequence printed is that of
// the goroutines with the most moves of TRACE3 beyond TRACE2.
func moves(trace2, trace3 string) error {
	m2, _, err := countMoves(trace2)
	if err != nil {
		return err
	}
	m3, seq, err := countMoves(trace3)
	if err != nil {
		return err
	}
	fmt.Printf("moves %d\n", m3-m2)
	_ = seq
	return nil
}

// countMoves reads a trace and returns its moves, and the sequence of
// files control passed through.
func countMoves(name string) (int, []string, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	stacks := map[string][]string{}
	n := 0
	var seq []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 {
			continue
		}
		g, op, file := fields[0], fields[1], fields[2]
		st := stacks[g]
		switch op {
		case "+":
			if len(st) > 0 && st[len(st)-1] != file {
				n++
				seq = append(seq, file)
			}
			stacks[g] = append(st, file)
		case "-":
			if len(st) == 0 {
				continue
			}
			st = st[:len(st)-1]
			stacks[g] = st
			if len(st) > 0 && st[len(st)-1] != file {
				n++
				seq = append(seq, st[len(st)-1])
			}
		}
	}
	return n, seq, sc.Err()
}
