// Command rows adds to the benchmark harness (../harness) the rows of
// issue 28 it does not measure itself, and prints that table from
// one run of harness/bench/run.sh (or of compare.sh --all, a column per
// build).
//
//	rows coldstart -n 40 -out cold.jsonl -server 'baremcp=BIN' -server 'baremcp-stdio=BIN' -server 'minimal=BIN'
//	rows table [-servers baremcp] -cold cold.jsonl -size baremcp=BIN -size floor=BIN RUN.jsonl...
//
// coldstart starts each server -n times, the servers alternated, and times
// the life of one stdio exchange: start the process, write one
// server/discover line, close stdin, read the answer, wait for the exit.
// A server command is a program and its arguments, split at spaces and
// run directly (no shell: its start-up would be measured too). Standard
// error goes to /dev/null. Each start writes one JSON line.
//
// table reads the harness's JSONL (the cells of every preset), the
// cold-start lines and the sizes of the stripped binaries, and prints one
// row per target of issue 28: the floor's figure from the same run, and
// for each server named by -servers (default baremcp) its figure, its
// ratio to the floor and whether the target is met. A server NAME's stdio
// build is NAME-stdio in the cold-start lines and the sizes. Figures are
// medians over rounds, as the harness reports them.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "coldstart":
		err = coldstart(os.Args[2:])
	case "table":
		err = table(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rows:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  rows coldstart [-n N] [-out FILE] -server NAME=COMMAND...
  rows table [-cold FILE] [-size NAME=PATH]... RUN.jsonl...`)
	os.Exit(2)
}

// listFlag is a repeatable NAME=VALUE flag, in the order given.
type listFlag [][2]string

func (l *listFlag) String() string { return fmt.Sprint(*l) }

func (l *listFlag) Set(v string) error {
	name, val, ok := strings.Cut(v, "=")
	if !ok || name == "" || val == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	*l = append(*l, [2]string{name, val})
	return nil
}

// discover is the one request of a cold start.
const discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"

// start is one cold start, as coldstart writes it.
type start struct {
	Kind     string  `json:"kind"` // "coldstart"
	Name     string  `json:"name"`
	Round    int     `json:"round"`
	AnswerMs float64 `json:"answer_ms"` // from before fork to the answer read
	ExitMs   float64 `json:"exit_ms"`   // from before fork to the exit reaped
	// CPUMs is the process's user and system time: what a start costs
	// whatever else the machine runs, where the wall times above wait for
	// the CPU on a loaded machine.
	CPUMs float64 `json:"cpu_ms"`
}

func coldstart(args []string) error {
	fs := flag.NewFlagSet("coldstart", flag.ExitOnError)
	n := fs.Int("n", 40, "starts per server")
	out := fs.String("out", "", "append one JSON line per start to this file (default stdout)")
	var servers listFlag
	fs.Var(&servers, "server", "NAME=COMMAND, repeatable")
	fs.Parse(args)
	if len(servers) == 0 {
		return errors.New("coldstart: need at least one -server")
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	enc := json.NewEncoder(w)
	// One unmeasured start each first: the page cache holds the binaries
	// from then on, for every server alike.
	for _, s := range servers {
		if _, err := once(s[1]); err != nil {
			return fmt.Errorf("coldstart %s: %w", s[0], err)
		}
	}
	times := map[string][]float64{}
	for round := 1; round <= *n; round++ {
		for _, s := range servers {
			st, err := once(s[1])
			if err != nil {
				return fmt.Errorf("coldstart %s: %w", s[0], err)
			}
			st.Name, st.Round = s[0], round
			if err := enc.Encode(st); err != nil {
				return err
			}
			times[s[0]] = append(times[s[0]], st.ExitMs)
		}
	}
	for _, s := range servers {
		fmt.Fprintf(os.Stderr, "# cold start %-10s median %.2f ms over %d starts\n", s[0], median(times[s[0]]), *n)
	}
	return nil
}

// once starts command, has it answer one server/discover on stdio, and
// times it until the process has exited.
func once(command string) (start, error) {
	argv := strings.Fields(command)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = os.Environ()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return start{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return start{}, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return start{}, err
	}
	io.WriteString(stdin, discover)
	stdin.Close()
	r := bufio.NewReader(stdout)
	line, err := r.ReadBytes('\n')
	answered := time.Since(t0)
	rest, _ := io.ReadAll(r)
	werr := cmd.Wait()
	exited := time.Since(t0)
	switch {
	case err != nil:
		return start{}, fmt.Errorf("no answer: %v", err)
	case !bytes.Contains(line, []byte(`"supportedVersions"`)):
		return start{}, fmt.Errorf("answer is not a discover result: %.200s", line)
	case len(bytes.TrimSpace(rest)) > 0:
		return start{}, fmt.Errorf("more than one line on stdout: %.200s", rest)
	case werr != nil:
		return start{}, fmt.Errorf("exit: %v", werr)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return start{Kind: "coldstart", AnswerMs: ms(answered), ExitMs: ms(exited), CPUMs: ms(cpu)}, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// cell is the part of a harness result line the table reads.
type cell struct {
	Name      string  `json:"name"`
	Workload  string  `json:"workload"`
	Supported bool    `json:"supported"`
	RPS       float64 `json:"rps"`
	P50us     float64 `json:"p50_us"`
	CPUus     float64 `json:"cpu_us_per_req"`
}

// target is one row of issue 28's table: a workload's figure against the
// floor's, or a figure of its own.
type target struct {
	label    string
	workload string                 // the harness cell
	figure   func(c []cell) float64 // median over rounds
	unit     string
	ratio    bool    // judge the ratio to the floor, not the figure
	limit    float64 // the target
	atLeast  bool    // the figure or ratio must be at least limit (else at most)
}

func med(f func(cell) float64) func([]cell) float64 {
	return func(cs []cell) float64 {
		var xs []float64
		for _, c := range cs {
			xs = append(xs, f(c))
		}
		return median(xs)
	}
}

var (
	rps = med(func(c cell) float64 { return c.RPS })
	p50 = med(func(c cell) float64 { return c.P50us })
	cpu = med(func(c cell) float64 { return c.CPUus })
)

// targets are issue 28's harness rows, in its order.
var targets = []target{
	{label: "stdio modern k=1: rps (×floor)", workload: "stdio,modern,call,k=1,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.80, atLeast: true},
	{label: "stdio modern k=32: rps (×floor)", workload: "stdio,modern,call,k=32,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.70, atLeast: true},
	{label: "stdio modern k=32: CPU µs/req", workload: "stdio,modern,call,k=32,payload=32,tools=20", figure: cpu, unit: "µs", limit: 8},
	{label: "stdio legacy k=32: rps (×floor)", workload: "stdio,legacy,call,k=32,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.70, atLeast: true},
	{label: "HTTP modern c=8: rps (×floor)", workload: "http,modern,call,c=8,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.85, atLeast: true},
	{label: "HTTP modern c=8: CPU µs/req (×floor)", workload: "http,modern,call,c=8,payload=32,tools=20", figure: cpu, unit: "µs", ratio: true, limit: 1.3},
	{label: "HTTP legacy c=8: rps (×floor)", workload: "http,legacy,call,c=8,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.85, atLeast: true},
	{label: "HTTP legacy c=8: CPU µs/req (×floor)", workload: "http,legacy,call,c=8,payload=32,tools=20", figure: cpu, unit: "µs", ratio: true, limit: 1.3},
	{label: "tools/list of 1,000 tools, HTTP: p50 µs", workload: "http,modern,list,c=1,tools=1000", figure: p50, unit: "µs", limit: 300},
	{label: "HTTP echo 1 MiB: p50 (×floor echo)", workload: "http,modern,call,c=1,payload=1m,tools=20", figure: p50, unit: "µs", ratio: true, limit: 1.8},
	{label: "stdio echo 1 MiB: p50 (×line echo)", workload: "stdio,modern,call,k=1,payload=1m,tools=20", figure: p50, unit: "µs", ratio: true, limit: 3},
}

func table(args []string) error {
	fs := flag.NewFlagSet("table", flag.ExitOnError)
	cold := fs.String("cold", "", "the cold-start JSONL (rows coldstart)")
	names := fs.String("servers", "baremcp", "the servers to report, comma-separated: a column each")
	var sizes listFlag
	fs.Var(&sizes, "size", "NAME=PATH of a stripped binary, repeatable: the servers', NAME-stdio for a stdio build, and floor")
	fs.Parse(args)
	servers := strings.Split(*names, ",")
	cells := map[string]map[string][]cell{} // workload, name
	for _, path := range fs.Args() {
		if err := readLines(path, func(b []byte) {
			var c cell
			if json.Unmarshal(b, &c) != nil || c.Workload == "" || !c.Supported {
				return
			}
			if cells[c.Workload] == nil {
				cells[c.Workload] = map[string][]cell{}
			}
			cells[c.Workload][c.Name] = append(cells[c.Workload][c.Name], c)
		}); err != nil {
			return err
		}
	}
	fmt.Print("| row | target | floor |")
	for _, s := range servers {
		fmt.Printf(" %s | ratio | met |", s)
	}
	fmt.Println()
	fmt.Print("|---|---|---|" + strings.Repeat("---|---|---|", len(servers)) + "\n")
	row := func(label string, t target, floor float64, figure func(server string) (float64, bool)) {
		fmt.Printf("| %s | %s | %s |", label, want(t), num(floor, t.unit))
		for _, s := range servers {
			v, ok := figure(s)
			if !ok || floor == 0 {
				fmt.Print(" not measured | | |")
				continue
			}
			judged := v
			if t.ratio {
				judged = v / floor
			}
			fmt.Printf(" %s | %.2f | %s |", num(v, t.unit), v/floor, met(judged, t))
		}
		fmt.Println()
	}
	for _, t := range targets {
		floor := 0.0
		if f := cells[t.workload]["floor"]; len(f) > 0 {
			floor = t.figure(f)
		}
		row(t.label, t, floor, func(s string) (float64, bool) {
			ours := cells[t.workload][s]
			return t.figure(ours), len(ours) > 0
		})
	}
	if *cold != "" {
		times, cpus := map[string][]float64{}, map[string][]float64{}
		if err := readLines(*cold, func(b []byte) {
			var s start
			if json.Unmarshal(b, &s) == nil && s.Kind == "coldstart" {
				times[s.Name] = append(times[s.Name], s.ExitMs)
				cpus[s.Name] = append(cpus[s.Name], s.CPUMs)
			}
		}); err != nil {
			return err
		}
		for _, build := range []struct {
			label, suffix string
			limit         float64
		}{{"full build", "", 1.8}, {"stdio build", "-stdio", 1.3}} {
			for _, m := range []struct {
				what string
				of   map[string][]float64
			}{{"", times}, {", its CPU time", cpus}} {
				row("cold start, "+build.label+m.what+": start, one server/discover, exit (×minimal Go program)", target{unit: "ms", ratio: true, limit: build.limit}, median(m.of["minimal"]),
					func(s string) (float64, bool) { v := median(m.of[s+build.suffix]); return v, v > 0 })
			}
		}
	}
	size := map[string]float64{}
	for _, s := range sizes {
		st, err := os.Stat(s[1])
		if err != nil {
			return err
		}
		size[s[0]] = float64(st.Size()) / 1024
	}
	if size["floor"] > 0 {
		for _, build := range []struct {
			label, suffix string
			limit         float64
		}{{"full build", "", 1.3}, {"stdio build", "-stdio", 0}} {
			row("stripped binary, "+build.label+" (×bare net/http program, both -trimpath -ldflags='-s -w')", target{unit: "KiB", ratio: true, limit: build.limit}, size["floor"],
				func(s string) (float64, bool) { v := size[s+build.suffix]; return v, v > 0 })
		}
	}
	return nil
}

func readLines(path string, f func([]byte)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f(sc.Bytes())
	}
	return sc.Err()
}

func num(v float64, unit string) string {
	if unit == "rps" {
		return fmt.Sprintf("%.0f rps", v)
	}
	if v >= 100 {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

func want(t target) string {
	if t.limit == 0 {
		return ""
	}
	op := "≤"
	if t.atLeast {
		op = "≥"
	}
	if t.ratio {
		return fmt.Sprintf("%s %.2f×", op, t.limit)
	}
	return fmt.Sprintf("%s %g", op, t.limit)
}

func met(v float64, t target) string {
	if t.limit == 0 {
		return ""
	}
	ok := v <= t.limit
	if t.atLeast {
		ok = v >= t.limit
	}
	if ok {
		return "yes"
	}
	return "**no**"
}
