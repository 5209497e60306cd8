// server.json: the server's entry in the MCP Registry, schema 2025-12-11.
// The registry has no package type for a Go binary: a bundle per OS and
// architecture (its release URL and fileSha256, which clients verify),
// and the OCI image.
// [server.json]: https://github.com/modelcontextprotocol/registry/blob/main/docs/reference/server-json/generic-server-json.md

package main

// serverJSONSchema is the schema the file names: the one the registry's
// Go module v1.8.9 embeds (harness/release/verify checks against it).
const serverJSONSchema = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

type serverJSON struct {
	Schema      string              `json:"$schema"`
	Name        string              `json:"name"`
	Title       string              `json:"title,omitempty"`
	Description string              `json:"description"`
	Repository  serverJSONRepo      `json:"repository"`
	Version     string              `json:"version"`
	WebsiteURL  string              `json:"websiteUrl,omitempty"`
	Packages    []serverJSONPackage `json:"packages"`
}

type serverJSONRepo struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type serverJSONPackage struct {
	RegistryType         string              `json:"registryType"`
	Identifier           string              `json:"identifier"`
	Version              string              `json:"version,omitempty"`
	FileSHA256           string              `json:"fileSha256,omitempty"`
	RuntimeHint          string              `json:"runtimeHint,omitempty"`
	Transport            serverJSONTransport `json:"transport"`
	EnvironmentVariables []serverJSONEnv     `json:"environmentVariables,omitempty"`
}

type serverJSONTransport struct {
	Type string `json:"type"`
}

type serverJSONEnv struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	IsRequired  bool   `json:"isRequired"`
	IsSecret    bool   `json:"isSecret"`
}

// serverJSON writes server.json.
func (w *writer) serverJSON(bundles []bundle, img image, rel *release, f *facts) error {
	s := serverJSON{
		Schema:      serverJSONSchema,
		Name:        rel.registryName,
		Title:       f.title,
		Description: f.summary(),
		Repository:  serverJSONRepo{rel.repo.url(), rel.repo.source()},
		Version:     rel.version,
		WebsiteURL:  f.websiteURL,
	}
	for _, b := range bundles {
		s.Packages = append(s.Packages, serverJSONPackage{
			RegistryType: "mcpb",
			Identifier:   rel.repo.download(rel.tag, b.file),
			Version:      rel.version,
			FileSHA256:   b.sha256,
			Transport:    serverJSONTransport{"stdio"},
		})
	}
	oci := serverJSONPackage{RegistryType: "oci", Identifier: img.ref, RuntimeHint: "docker", Transport: serverJSONTransport{"stdio"}}
	for _, e := range f.stdioEnv {
		// Over stdio (the image's default) only what the stdio build reads.
		oci.EnvironmentVariables = append(oci.EnvironmentVariables, serverJSONEnv{Name: e.name, Description: e.describe(), IsSecret: true})
	}
	s.Packages = append(s.Packages, oci)
	_, err := w.json("server.json", s)
	return err
}
