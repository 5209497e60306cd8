// Reading docs/DEPLOY.md: the cluster check runs the configuration the
// document shows, taken from the blocks marked
// <!-- cluster-check: NAME -->, so the document and the check cannot drift
// apart. Nothing here is a second copy of it.

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// deployment is what docs/DEPLOY.md says the cluster is.
type deployment struct {
	haproxyCfg string    // the haproxy.cfg block, byte for byte
	replicas   []replica // one per line of the replicas block, in order
	unit       string    // the systemd unit block
	frontend   string    // the address HAProxy serves MCP on (frontend mcp's bind)
	stats      string    // the address of HAProxy's statistics page (frontend stats's bind)
	statsURI   string    // its path
	// streamIdle is how long HAProxy lets a long-lived stream stay silent
	// (the set-timeout server rule for is_stream).
	streamIdle string
}

// replica is one baremcp process as the replicas block starts it.
type replica struct {
	name string   // -replica-id, also HAProxy's server name
	addr string   // -http
	args []string // the command line after the program name
}

// markedBlock returns the fenced code block that follows the marker
// <!-- cluster-check: name --> in doc.
func markedBlock(doc, name string) (string, error) {
	marker := "<!-- cluster-check: " + name + " -->"
	_, after, ok := strings.Cut(doc, marker)
	if !ok {
		return "", fmt.Errorf("docs/DEPLOY.md has no %s", marker)
	}
	after = strings.TrimLeft(after, "\n")
	fence, rest, ok := strings.Cut(after, "\n")
	if !ok || !strings.HasPrefix(fence, "```") {
		return "", fmt.Errorf("docs/DEPLOY.md: %s is not followed by a fenced block", marker)
	}
	body, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		return "", fmt.Errorf("docs/DEPLOY.md: the block after %s does not end", marker)
	}
	return body + "\n", nil
}

// readDeployment extracts the cluster's configuration from doc and checks
// that its parts agree: every HAProxy server is a replica with the same
// name and address, and the systemd unit runs each replica's flags.
func readDeployment(doc string) (*deployment, error) {
	d := &deployment{}
	var err error
	if d.haproxyCfg, err = markedBlock(doc, "haproxy.cfg"); err != nil {
		return nil, err
	}
	lines, err := markedBlock(doc, "replicas")
	if err != nil {
		return nil, err
	}
	if d.unit, err = markedBlock(doc, "baremcp@.service"); err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "baremcp" {
			return nil, fmt.Errorf("replicas block: %q does not start with baremcp", line)
		}
		r := replica{args: f[1:]}
		for i := 1; i+1 < len(f); i++ {
			switch f[i] {
			case "-http":
				r.addr = f[i+1]
			case "-replica-id":
				r.name = f[i+1]
			}
		}
		if r.addr == "" || r.name == "" {
			return nil, fmt.Errorf("replicas block: %q needs -http and -replica-id", line)
		}
		d.replicas = append(d.replicas, r)
	}
	servers := map[string]string{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(d.haproxyCfg))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case sc.Text()[0] != ' ' && sc.Text()[0] != '\t':
			section = strings.Join(f, " ")
		case f[0] == "bind" && len(f) > 1 && section == "frontend mcp":
			d.frontend = f[1]
		case f[0] == "bind" && len(f) > 1 && section == "frontend stats":
			d.stats = f[1]
		case f[0] == "stats" && len(f) > 2 && f[1] == "uri":
			d.statsURI = f[2]
		case f[0] == "server" && len(f) > 2:
			servers[f[1]] = f[2]
		case len(f) > 5 && f[0] == "http-request" && f[1] == "set-timeout" && f[2] == "server" && f[4] == "if" && f[5] == "is_stream":
			d.streamIdle = f[3]
		}
	}
	if d.frontend == "" || d.stats == "" || d.statsURI == "" || d.streamIdle == "" {
		return nil, errors.New("haproxy.cfg: want frontend mcp and frontend stats with a bind each, a stats uri, and a set-timeout server rule for is_stream")
	}
	if len(servers) != len(d.replicas) {
		return nil, fmt.Errorf("haproxy.cfg names %d servers, the replicas block starts %d", len(servers), len(d.replicas))
	}
	for _, r := range d.replicas {
		if servers[r.name] != r.addr {
			return nil, fmt.Errorf("haproxy.cfg: server %s is at %q, the replica -replica-id %s listens on %q", r.name, servers[r.name], r.name, r.addr)
		}
	}
	return d, nil
}

// unitRuns checks that the systemd unit, instantiated for each replica
// (%i is the replica's number, 1 for the first), runs the replica's
// flags, in order, among its own.
func (d *deployment) unitRuns() error {
	m := regexp.MustCompile(`(?m)^ExecStart=(\S+)(.*)$`).FindStringSubmatch(d.unit)
	if m == nil {
		return errors.New("the unit has no ExecStart line")
	}
	for i, r := range d.replicas {
		args := strings.Fields(strings.ReplaceAll(m[2], "%i", fmt.Sprint(i+1)))
		j := 0
		for _, a := range args {
			if j < len(r.args) && a == r.args[j] {
				j++
			}
		}
		if j < len(r.args) {
			return fmt.Errorf("the unit's ExecStart for %%i=%d does not run %q (stops matching at %q)", i+1, strings.Join(r.args, " "), r.args[j])
		}
	}
	return nil
}

// checkUnit has systemd judge the unit, where systemd-analyze is
// installed: verify must find nothing to say (with the unit's program
// replaced by bin, which exists here), and security must rate its
// exposure at most 2.0 ("OK"). It returns the rating, or "" when
// systemd-analyze is missing.
func (d *deployment) checkUnit(dir, bin string) (string, error) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		return "", nil
	}
	unit := regexp.MustCompile(`(?m)^(ExecStart=)\S+`).ReplaceAllString(d.unit, "${1}"+bin)
	path := filepath.Join(dir, "baremcp@.service")
	if err := os.WriteFile(path, []byte(unit), 0o600); err != nil {
		return "", err
	}
	out, err := exec.Command(analyze, "verify", "--man=no", filepath.Join(dir, "baremcp@1.service")).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		return "", fmt.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.Command(analyze, "security", "--offline=yes", path).CombinedOutput()
	m := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+) (\S+)`).FindSubmatch(out)
	if err != nil || m == nil {
		return "", fmt.Errorf("systemd-analyze security: %v\n%s", err, out)
	}
	level, _ := strconv.ParseFloat(string(m[1]), 64)
	rating := fmt.Sprintf("exposure %s %s", m[1], m[2])
	if level > 2.0 {
		return rating, fmt.Errorf("systemd-analyze security rates the unit's %s; keep it at 2.0 or below", rating)
	}
	return rating, nil
}
