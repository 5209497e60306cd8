// Command rows adds to the benchmark harness (../harness) the rows of
// issue 16 it does not measure itself, and prints that table from
// one run of harness/bench/run.sh.
//
//	rows coldstart -n 40 -out cold.jsonl -server 'baremcp=BIN' -server 'minimal=BIN'
//	rows table -cold cold.jsonl -size baremcp=BIN -size floor=BIN RUN.jsonl...
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
// row per target of issue 16: the figure for baremcp, the floor's from the
// same run, their ratio, the target and whether it is met. Figures are
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

// target is one row of issue 16's table: a workload's figure for baremcp
// against the floor's, or a figure of its own (cold start, size).
type target struct {
	label    string
	workload string                 // "" for the rows measured here
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

// targets are issue 16's, in its order.
var targets = []target{
	{label: "stdio modern k=32: rps (×floor)", workload: "stdio,modern,call,k=32,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.60, atLeast: true},
	{label: "stdio modern k=32: CPU µs/req", workload: "stdio,modern,call,k=32,payload=32,tools=20", figure: cpu, unit: "µs", limit: 10},
	{label: "stdio legacy k=32: rps (×floor)", workload: "stdio,legacy,call,k=32,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.60, atLeast: true},
	{label: "stdio legacy k=32: CPU µs/req", workload: "stdio,legacy,call,k=32,payload=32,tools=20", figure: cpu, unit: "µs", limit: 10},
	{label: "stdio modern k=1: rps (×floor)", workload: "stdio,modern,call,k=1,payload=32,tools=20", figure: rps, unit: "rps", ratio: true, limit: 0.80, atLeast: true},
	{label: "HTTP echo 1 MiB: p50 (×floor echo)", workload: "http,modern,call,c=1,payload=1m,tools=20", figure: p50, unit: "µs", ratio: true, limit: 2},
	{label: "stdio echo 1 MiB: p50 (×line echo)", workload: "stdio,modern,call,k=1,payload=1m,tools=20", figure: p50, unit: "µs", ratio: true, limit: 4},
	{label: "HTTP modern c=8: CPU µs/req (×floor)", workload: "http,modern,call,c=8,payload=32,tools=20", figure: cpu, unit: "µs", ratio: true, limit: 1.3},
}

func table(args []string) error {
	fs := flag.NewFlagSet("table", flag.ExitOnError)
	cold := fs.String("cold", "", "the cold-start JSONL (rows coldstart)")
	var sizes listFlag
	fs.Var(&sizes, "size", "NAME=PATH of a stripped binary, repeatable: baremcp and floor, then any variants")
	fs.Parse(args)
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
	fmt.Println("| row | baremcp | floor | ratio | target | met |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, t := range targets {
		ours, floor := cells[t.workload]["baremcp"], cells[t.workload]["floor"]
		if len(ours) == 0 || len(floor) == 0 {
			fmt.Printf("| %s | not measured | | | | |\n", t.label)
			continue
		}
		v, f := t.figure(ours), t.figure(floor)
		judged := v
		if t.ratio {
			judged = v / f
		}
		fmt.Printf("| %s | %s | %s | %.2f | %s | %s |\n", t.label, num(v, t.unit), num(f, t.unit), v/f, want(t), met(judged, t))
	}
	if *cold != "" {
		times := map[string][]float64{}
		if err := readLines(*cold, func(b []byte) {
			var s start
			if json.Unmarshal(b, &s) == nil && s.Kind == "coldstart" {
				times[s.Name] = append(times[s.Name], s.ExitMs)
			}
		}); err != nil {
			return err
		}
		t := target{ratio: true, limit: 1.5}
		if v, f := median(times["baremcp"]), median(times["minimal"]); v > 0 && f > 0 {
			fmt.Printf("| cold start: start, one server/discover, exit (×minimal Go program) | %.2f ms | %.2f ms | %.2f | %s | %s |\n",
				v, f, v/f, want(t), met(v/f, t))
		}
	}
	if len(sizes) >= 2 {
		var size [2]int64
		for i, s := range sizes[:2] {
			st, err := os.Stat(s[1])
			if err != nil {
				return err
			}
			size[i] = st.Size()
		}
		t := target{ratio: true, limit: 1.1}
		r := float64(size[0]) / float64(size[1])
		fmt.Printf("| stripped binary: %s (×%s, %s) | %d KiB | %d KiB | %.2f | %s | %s |\n",
			sizes[0][0], sizes[1][0], "both -trimpath -ldflags='-s -w'", size[0]>>10, size[1]>>10, r, want(t), met(r, t))
		for _, s := range sizes[2:] {
			st, err := os.Stat(s[1])
			if err != nil {
				return err
			}
			fmt.Printf("| stripped binary: %s | %d KiB | %d KiB | %.2f | | |\n", s[0], st.Size()>>10, size[1]>>10, float64(st.Size())/float64(size[1]))
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
	ok := v <= t.limit
	if t.atLeast {
		ok = v >= t.limit
	}
	if ok {
		return "yes"
	}
	return "**no**"
}
