// provenance.intoto.json: which source, toolchain and flags made each
// binary, as an in-toto statement with a SLSA provenance v1 predicate. It
// is not signed: sign it where the release is published (cosign, or the
// forge's attestations) if consumers verify provenance.
// [in-toto Statement v1]: https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md
// [SLSA provenance v1]: https://slsa.dev/spec/v1.0/provenance

package main

import "strings"

type statement struct {
	Type          string     `json:"_type"`
	Subject       []subject  `json:"subject"`
	PredicateType string     `json:"predicateType"`
	Predicate     provenance `json:"predicate"`
}

type subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

type provenance struct {
	BuildDefinition buildDefinition `json:"buildDefinition"`
	RunDetails      runDetails      `json:"runDetails"`
}

type buildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   externalParameters   `json:"externalParameters"`
	InternalParameters   internalParameters   `json:"internalParameters"`
	ResolvedDependencies []resourceDescriptor `json:"resolvedDependencies"`
}

type externalParameters struct {
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Version    string `json:"version"`
}

type internalParameters struct {
	Toolchain string       `json:"toolchain"`
	Env       []string     `json:"env"`
	Builds    []buildParam `json:"builds"`
}

type buildParam struct {
	Name    string   `json:"name"`
	Command string   `json:"command"`
	Targets []string `json:"targets"`
}

type resourceDescriptor struct {
	URI    string            `json:"uri"`
	Digest map[string]string `json:"digest"`
}

type runDetails struct {
	Builder builder `json:"builder"`
}

type builder struct {
	ID string `json:"id"`
}

// provenance writes the statement for every binary.
func (w *writer) provenance(bins binaries, rel *release, c checkout) error {
	var subjects []subject
	for _, b := range bins {
		subjects = append(subjects, subject{b.file, map[string]string{"sha256": b.sha256}})
	}
	var ts []string
	for _, t := range targets {
		ts = append(ts, t.goos+"/"+t.goarch)
	}
	var bp []buildParam
	for _, b := range builds {
		bp = append(bp, buildParam{b.name, "go " + strings.Join(quoteArgs(buildArgs(b.tags, rel.version, "OUT")), " "), ts})
	}
	script := rel.repo.blob(c.commit, "harness/release/build.sh")
	s := statement{
		Type:          "https://in-toto.io/Statement/v1",
		Subject:       subjects,
		PredicateType: "https://slsa.dev/provenance/v1",
		Predicate: provenance{
			BuildDefinition: buildDefinition{
				BuildType:          script,
				ExternalParameters: externalParameters{rel.repo.url(), c.commit, rel.version},
				InternalParameters: internalParameters{c.toolchain, buildEnv, bp},
				ResolvedDependencies: []resourceDescriptor{
					{"git+" + rel.repo.url() + ".git@" + c.commit, map[string]string{"gitCommit": c.commit}},
				},
			},
			RunDetails: runDetails{builder{script}},
		},
	}
	_, err := w.json("provenance.intoto.json", s)
	return err
}

// quoteArgs quotes the arguments a shell would split.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " '\"") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}
