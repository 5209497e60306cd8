// The OCI image: the full server FROM scratch for linux/amd64 and
// linux/arm64, written as an OCI image layout (no container engine), one
// index tagged with the version. Its entrypoint serves stdio (`docker run
// -i --rm IMAGE`, as the MCP Registry runs an oci package); arguments
// after the image are the server's flags (-http 0.0.0.0:8080 ...). It runs
// as a user that is not root, and carries the label the MCP Registry
// checks against server.json's name.
// [OCI image layout]: https://github.com/opencontainers/image-spec/blob/v1.1.1/image-layout.md
// [MCP Registry, OCI packages]: https://github.com/modelcontextprotocol/registry/blob/main/docs/modelcontextprotocol-io/package-types.mdx

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// Media types of the image spec v1.1.
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// ociUser is the image's user: not root, and the uid distroless images
// call nonroot. No /etc/passwd is needed for a numeric one.
const ociUser = "65532:65532"

// refName is the annotation of a tag in the layout's index.json.
const refName = "org.opencontainers.image.ref.name"

// labelServerName is the label the MCP Registry reads to tie an image to
// its server.json.
const labelServerName = "io.modelcontextprotocol.server.name"

type ociDescriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *ociPlatform      `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type ociPlatform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

type ociIndex struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []ociDescriptor   `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type ociManifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Config        ociDescriptor     `json:"config"`
	Layers        []ociDescriptor   `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

type ociImageConfig struct {
	Created      string       `json:"created"`
	Architecture string       `json:"architecture"`
	OS           string       `json:"os"`
	Config       ociRunConfig `json:"config"`
	RootFS       ociRootFS    `json:"rootfs"`
	History      []ociHistory `json:"history"`
}

type ociRunConfig struct {
	User       string            `json:"User"`
	Entrypoint []string          `json:"Entrypoint"`
	WorkingDir string            `json:"WorkingDir"`
	Labels     map[string]string `json:"Labels"`
}

type ociRootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

type ociHistory struct {
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
}

// image is the written layout.
type image struct {
	ref string // "ghcr.io/ada/shouter:1.2.3"
}

// blob writes data as a blob of the layout and returns its descriptor.
func (w *writer) blob(media string, data []byte) (ociDescriptor, error) {
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	if _, err := w.file("oci/blobs/sha256/"+hexSum, data); err != nil {
		return ociDescriptor{}, err
	}
	return ociDescriptor{MediaType: media, Digest: "sha256:" + hexSum, Size: int64(len(data))}, nil
}

// oci writes the image layout under oci/.
func (w *writer) oci(bins binaries, rel *release, f *facts) (image, error) {
	created := w.time.Format("2006-01-02T15:04:05Z")
	labels := map[string]string{
		labelServerName:                        rel.registryName,
		"org.opencontainers.image.created":     created,
		"org.opencontainers.image.revision":    "",
		"org.opencontainers.image.source":      rel.repo.url(),
		"org.opencontainers.image.title":       rel.server,
		"org.opencontainers.image.version":     rel.version,
		"org.opencontainers.image.description": f.summary(),
	}
	var manifests []ociDescriptor
	for _, arch := range []string{"amd64", "arm64"} {
		b := bins.find("linux/"+arch, "full")
		exe, err := os.ReadFile(filepath.Join(w.dir, b.file))
		if err != nil {
			return image{}, err
		}
		layer, diffID, err := w.layer(rel.server, exe)
		if err != nil {
			return image{}, err
		}
		layerDesc, err := w.blob(mediaLayer, layer)
		if err != nil {
			return image{}, err
		}
		cfg := ociImageConfig{
			Created:      created,
			Architecture: arch,
			OS:           "linux",
			Config: ociRunConfig{
				User:       ociUser,
				Entrypoint: []string{"/" + rel.server},
				WorkingDir: "/",
				Labels:     labels,
			},
			RootFS:  ociRootFS{Type: "layers", DiffIDs: []string{diffID}},
			History: []ociHistory{{Created: created, CreatedBy: "harness/release/mkrelease: /" + rel.server + " from " + b.file}},
		}
		cfgJSON, err := marshal(cfg)
		if err != nil {
			return image{}, err
		}
		cfgDesc, err := w.blob(mediaConfig, cfgJSON)
		if err != nil {
			return image{}, err
		}
		m, err := marshal(ociManifest{SchemaVersion: 2, MediaType: mediaManifest, Config: cfgDesc, Layers: []ociDescriptor{layerDesc}, Annotations: labels})
		if err != nil {
			return image{}, err
		}
		mDesc, err := w.blob(mediaManifest, m)
		if err != nil {
			return image{}, err
		}
		mDesc.Platform = &ociPlatform{Architecture: arch, OS: "linux"}
		manifests = append(manifests, mDesc)
	}
	idx, err := marshal(ociIndex{SchemaVersion: 2, MediaType: mediaIndex, Manifests: manifests, Annotations: labels})
	if err != nil {
		return image{}, err
	}
	idxDesc, err := w.blob(mediaIndex, idx)
	if err != nil {
		return image{}, err
	}
	// The layout tags the index with the version, and each image with
	// VERSION-linux-ARCH too, for tools that take one image per tag
	// (umoci 0.4 calls a multi-platform index "ambiguous").
	idxDesc.Annotations = map[string]string{refName: rel.version}
	tags := []ociDescriptor{idxDesc}
	for _, m := range manifests {
		m.Annotations = map[string]string{refName: rel.version + "-linux-" + m.Platform.Architecture}
		tags = append(tags, m)
	}
	if _, err := w.json("oci/index.json", ociIndex{SchemaVersion: 2, MediaType: mediaIndex, Manifests: tags}); err != nil {
		return image{}, err
	}
	if _, err := w.file("oci/oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`+"\n")); err != nil {
		return image{}, err
	}
	return image{ref: rel.image + ":" + rel.version}, nil
}

// layer returns the image's one layer, gzipped, and the digest of its
// tar (the diff ID): the binary at /NAME, owned by root, executable by
// all, dated w.time. gzip's header holds no name and no time.
func (w *writer) layer(name string, exe []byte) ([]byte, string, error) {
	var t bytes.Buffer
	tw := tar.NewWriter(&t)
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(exe)), ModTime: w.time, Format: tar.FormatUSTAR}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, "", err
	}
	if _, err := tw.Write(exe); err != nil {
		return nil, "", err
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	diff := sha256.Sum256(t.Bytes())
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if err != nil {
		return nil, "", err
	}
	if _, err := zw.Write(t.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return z.Bytes(), "sha256:" + hex.EncodeToString(diff[:]), nil
}
