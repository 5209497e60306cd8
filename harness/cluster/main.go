// Command cluster is baremcp's cluster check (issue 15): three replicas
// behind HAProxy, configured exactly as docs/DEPLOY.md shows (the
// configuration is read from the document's marked blocks), and then
// checks, through the proxy, that both eras of MCP work there and that a
// rolling restart under load loses no modern request. It prints PASS,
// FAIL or SKIP per check, the load's figures, and last "N passed, M
// failed".
//
// Usage (check.sh builds the binary and finds HAProxy):
//
//	cd harness/cluster && go run . -bin /path/to/baremcp [-repo ../..] [-haproxy haproxy] [-rate 200]
//
// The binary must be built with the demo (go build -tags demo): the
// checks call its tools by name. Everything listens on loopback, at the
// addresses the document names; the check refuses to start when one is
// taken. Exit status: 0 every check passed, 1 one failed, 2 the cluster
// could not be set up.
package main

import (
	"crypto/rand"
	"encoding/base64"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	repo := flag.String("repo", "../..", "the baremcp repository (for docs/DEPLOY.md)")
	bin := flag.String("bin", "", "the baremcp binary, built with -tags demo")
	haproxy := flag.String("haproxy", "haproxy", "the haproxy binary")
	rate := flag.Int("rate", 200, "modern requests a second during the rolling restart")
	settle := flag.Duration("settle", 2*time.Second, "load before the first restart and after each")
	keep := flag.Bool("keep", false, "keep the configuration and logs directory")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "cluster: -bin is required")
		os.Exit(2)
	}
	os.Exit(run(*repo, *bin, *haproxy, *rate, *settle, *keep))
}

// run sets the cluster up, runs every check and tears it down.
func run(repo, bin, haproxy string, rate int, settle time.Duration, keep bool) int {
	s := &suite{}
	doc, err := os.ReadFile(filepath.Join(repo, "docs", "DEPLOY.md"))
	if err != nil {
		return setupFailed(err)
	}
	d, err := readDeployment(string(doc))
	s.check("docs/DEPLOY.md: the HAProxy configuration, the replicas' command lines and the systemd unit are there and agree", err)
	if err != nil {
		return summary(s)
	}
	s.check("docs/DEPLOY.md: the systemd unit runs each replica's flags", d.unitRuns())
	dir, err := os.MkdirTemp("", "baremcp-cluster")
	if err != nil {
		return setupFailed(err)
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	c := &cluster{d: d, bin: bin, haproxy: haproxy, dir: dir, procs: map[string]*process{},
		env:  []string{"BAREMCP_STATE_KEY=" + base64.StdEncoding.EncodeToString(key)},
		base: "http://" + d.frontend, url: "http://" + d.frontend + "/mcp"}
	defer func() {
		c.stop()
		if keep || s.failed > 0 {
			fmt.Printf("configuration and logs kept in %s\n", dir)
		} else {
			os.RemoveAll(dir)
		}
	}()
	rating, err := d.checkUnit(dir, bin)
	switch {
	case rating == "" && err == nil:
		s.skip("the systemd unit: systemd-analyze verify and security", "systemd-analyze is not installed")
	default:
		s.check("the systemd unit: systemd-analyze verify finds nothing, security rates it "+rating, err)
	}
	if err := c.freePorts(); err != nil {
		return setupFailed(err)
	}
	for _, r := range d.replicas {
		if err := c.startReplica(r); err != nil {
			return setupFailed(err)
		}
	}
	if err := c.startHAProxy(); err != nil {
		tail := ""
		if c.lb != nil {
			tail = "\n" + c.lb.tail(20)
		}
		return setupFailed(fmt.Errorf("%v%s", err, tail))
	}
	fmt.Printf("# %d replicas (%s) behind HAProxy at %s, shared BAREMCP_STATE_KEY\n", len(d.replicas), bin, c.url)

	s.check("classic sessions (2025-11-25): initialize lands anywhere; POSTs, the GET stream, the answers to elicitation, sampling and roots requests and DELETE reach the session's replica", checkClassic(c))
	listenClient := newClient("")
	defer listenClient.CloseIdleConnections()
	lis, err := openListen(c, listenClient)
	s.check("subscriptions/listen through the proxy: the acknowledgement first, within 2s", err)
	s.check("modern requests (tools, resources, prompts, lists, discover) spread over every replica, none failing", checkSpread(c))
	s.check("multi round-trip tools/call (elicitation): the retry answered by replicas other than the first round's", checkMRTR(c, "confirm_delete", `{"path":"/mrtr"}`, "confirm", `{"action":"accept","content":{"confirm":true}}`, "deleted /mrtr"))
	s.check("multi round-trip tools/call (sampling) across replicas", checkMRTR(c, "ask_model", `{"question":"q"}`, "answer", `{"role":"assistant","content":{"type":"text","text":"a"},"model":"m"}`, "model said: a"))
	s.check("multi round-trip tools/call (roots) across replicas", checkMRTR(c, "list_roots", `{}`, "roots", `{"roots":[{"uri":"file:///r"}]}`, "file:///r"))
	s.check("the 2024-11-05 HTTP+SSE transport: /messages reaches the replica holding the stream (sessionId starts with the replica id)", checkClassicSSE(c))
	s.check("tasks through the proxy: created anywhere, polled, updated and cancelled on the owner (Mcp-Name starts with the replica id)", checkTasks(c))
	s.check("rate limit per client behind the proxy (X-Forwarded-For, -trusted-proxy): one client throttled, another served", checkRateShares(c))
	if lis != nil {
		s.check("subscriptions/listen through the proxy: keep-alives hold an idle stream past the proxy's stream timeout, notifications unbuffered", checkIdleListen(c, lis))
	}
	rollingRestart(c, s, rate, settle)
	return summary(s)
}

// setupFailed reports a cluster that could not be set up.
func setupFailed(err error) int {
	fmt.Printf("cluster: setup failed: %v\n", err)
	return 2
}

// summary prints the last line and returns the exit status.
func summary(s *suite) int {
	fmt.Printf("%d passed, %d failed\n", s.passed, s.failed)
	if s.failed > 0 {
		return 1
	}
	return 0
}

// keys returns the keys of m.
func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// sortStrings sorts ss and returns it.
func sortStrings(ss []string) []string {
	slices.Sort(ss)
	return ss
}
