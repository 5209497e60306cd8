// Command minimal is the cold-start floor of the benchmark script: the
// least a Go program can do to play the server's part in one exchange. It
// answers every non-blank stdin line with a fixed server/discover result
// (id 1, as the cold-start driver asks) and exits when stdin ends. It
// parses nothing: what it costs is starting a Go process and moving the
// bytes.
package main

import (
	"bufio"
	"bytes"
	"os"
)

var answer = []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"minimal","version":"0"}}}}` + "\n")

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			os.Stdout.Write(answer)
		}
		if err != nil {
			return
		}
	}
}
