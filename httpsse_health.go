//go:build !stdio

// Health and readiness of the Streamable HTTP transport, for load
// balancers, orchestrators and supervisors: GET /healthz answers 200 while
// the process serves; GET /readyz answers 200 while the server takes new
// work and 503 from the moment shutdown begins, so that a load balancer
// drains the instance before its listener closes (-shutdown-delay) and
// while the requests in flight finish (-shutdown-timeout). Both answer
// before any other check (Host, Origin, authentication: a probe carries
// none of them), reveal nothing but their status, and cost a header
// write. docs/OPERATIONS.md shows them behind HAProxy and Kubernetes.
//
// Spec: none in MCP; the conventions of Kubernetes probes
// (https://kubernetes.io/docs/reference/using-api/health-checks/).

package main

import "net/http"

// The health endpoints' paths.
const (
	healthPath = "/healthz"
	readyPath  = "/readyz"
)

// probeRoutes registers /healthz and /readyz on mux: the MCP listener's
// and the -metrics listener's, which say the same (server.draining).
func (s *server) probeRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET "+healthPath, s.healthz)
	mux.HandleFunc("GET "+readyPath, s.readyz)
}

// healthz answers a liveness probe: the process is serving HTTP.
func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	writeProbe(w, http.StatusOK, "ok\n")
}

// readyz answers a readiness probe: 200 until shutdown begins
// (beginDrain), 503 after.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeProbe(w, http.StatusServiceUnavailable, "draining\n")
		return
	}
	writeProbe(w, http.StatusOK, "ready\n")
}

// beginDrain turns /readyz to 503 for good: shutdown has begun.
func (t *httpTransport) beginDrain() { t.s.draining.Store(true) }

// writeProbe writes a probe's answer: a word of plain text, never cached,
// and closes its connection after it (Connection: close). A probe comes
// every few seconds on a new connection (Kubernetes and HAProxy open one
// per check), so keeping it would only leave an idle connection to hold
// for two minutes, one that anyone who reaches the port could hold for
// free, a probe at a time (the fourth review, R4-8).
func writeProbe(w http.ResponseWriter, status int, body string) {
	setReason(w, reasonProbe)
	h := w.Header()
	h.Set("Connection", "close")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}
