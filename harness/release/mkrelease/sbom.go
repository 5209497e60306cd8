// The SBOM of each binary: an SPDX 2.3 document made from the build
// information the binary carries, what `go version -m` prints (read with
// debug/buildinfo, the package go version uses): the main module at its
// commit, the Go standard library at the toolchain's version, every other
// module, and the build settings.
// [SPDX 2.3]: https://spdx.github.io/spdx-spec/v2.3/

package main

import (
	"debug/buildinfo"
	"fmt"
	"path/filepath"
	"strings"
)

// spdxDocument is the part of SPDX 2.3 written, in its order.
type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreationInfo   `json:"creationInfo"`
	DocumentDescribes []string           `json:"documentDescribes"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	SPDXID                string            `json:"SPDXID"`
	Name                  string            `json:"name"`
	VersionInfo           string            `json:"versionInfo,omitempty"`
	DownloadLocation      string            `json:"downloadLocation"`
	FilesAnalyzed         bool              `json:"filesAnalyzed"`
	Checksums             []spdxChecksum    `json:"checksums,omitempty"`
	PrimaryPackagePurpose string            `json:"primaryPackagePurpose,omitempty"`
	ExternalRefs          []spdxExternalRef `json:"externalRefs,omitempty"`
	Comment               string            `json:"comment,omitempty"`
}

type spdxChecksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

type spdxExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	SPDXElementID      string `json:"spdxElementId"`
	RelationshipType   string `json:"relationshipType"`
	RelatedSPDXElement string `json:"relatedSpdxElement"`
}

// sbomName is the SBOM file of binary file.
func sbomName(file string) string { return strings.TrimSuffix(file, ".exe") + ".spdx.json" }

// sbom writes b's SBOM.
func (w *writer) sbom(b binary, rel *release, c checkout) error {
	info, err := buildinfo.ReadFile(filepath.Join(w.dir, b.file))
	if err != nil {
		return fmt.Errorf("%s: %w", b.file, err)
	}
	var settings []string
	for _, s := range info.Settings {
		settings = append(settings, s.Key+"="+s.Value)
	}
	bin := spdxPackage{
		SPDXID:                "SPDXRef-Binary",
		Name:                  b.file,
		VersionInfo:           rel.version,
		DownloadLocation:      rel.repo.download(rel.tag, b.file),
		Checksums:             []spdxChecksum{{"SHA256", b.sha256}},
		PrimaryPackagePurpose: "APPLICATION",
		Comment:               "go version -m: " + info.GoVersion + "; " + strings.Join(settings, " "),
	}
	mod := spdxPackage{
		SPDXID:           "SPDXRef-Module-main",
		Name:             info.Main.Path,
		VersionInfo:      info.Main.Version,
		DownloadLocation: "git+" + rel.repo.url() + ".git@" + c.commit,
		ExternalRefs:     []spdxExternalRef{purl(info.Main.Path, info.Main.Version)},
	}
	stdlib := spdxPackage{
		SPDXID:           "SPDXRef-Module-stdlib",
		Name:             "stdlib",
		VersionInfo:      info.GoVersion,
		DownloadLocation: "https://go.dev/dl/",
		ExternalRefs:     []spdxExternalRef{purl("stdlib", info.GoVersion)},
	}
	doc := spdxDocument{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              b.file,
		DocumentNamespace: rel.repo.url() + "/spdx/" + b.file + "-" + b.sha256,
		CreationInfo: spdxCreationInfo{
			Created:  w.time.Format("2006-01-02T15:04:05Z"),
			Creators: []string{"Tool: harness/release/mkrelease", "Organization: " + rel.author},
		},
		DocumentDescribes: []string{bin.SPDXID},
		Packages:          []spdxPackage{bin, mod, stdlib},
		Relationships: []spdxRelationship{
			{"SPDXRef-DOCUMENT", "DESCRIBES", bin.SPDXID},
			{bin.SPDXID, "CONTAINS", mod.SPDXID},
			{bin.SPDXID, "CONTAINS", stdlib.SPDXID},
		},
	}
	for i, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		p := spdxPackage{
			SPDXID:           fmt.Sprintf("SPDXRef-Module-%d", i+1),
			Name:             d.Path,
			VersionInfo:      d.Version,
			DownloadLocation: "https://proxy.golang.org/" + d.Path + "/@v/" + d.Version + ".zip",
			ExternalRefs:     []spdxExternalRef{purl(d.Path, d.Version)},
			Comment:          "go.sum " + d.Sum,
		}
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, spdxRelationship{bin.SPDXID, "CONTAINS", p.SPDXID})
	}
	_, err = w.json(sbomName(b.file), doc)
	return err
}

// purl is the package URL of a Go module (or of the standard library,
// "stdlib"), as SBOM tools write it.
// [purl, golang]: https://github.com/package-url/purl-spec/blob/main/types-doc/golang-definition.md
func purl(path, version string) spdxExternalRef {
	return spdxExternalRef{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}
}
