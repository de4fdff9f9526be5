// Package docs holds efmesh's documentation pages (Markdown) and embeds
// the concept pages, so that `efmesh help <topic>` prints the very text
// docs/concepts/ holds: each explanation is written once. It knows nothing
// of efmesh's code; the command line decides how a page is printed.
package docs

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

//go:embed concepts/*.md
var concepts embed.FS

// A Topic is one concept page: Name is its file name without .md (the
// help topic), Title its first heading, Body the Markdown after it.
type Topic struct {
	Name, Title, Body string
}

// Topics are the concept pages, by name.
func Topics() []Topic {
	entries, err := fs.ReadDir(concepts, "concepts")
	if err != nil {
		panic("docs: the embedded concept pages: " + err.Error()) // embedded at build time
	}
	var topics []Topic
	for _, e := range entries {
		b, err := concepts.ReadFile(path.Join("concepts", e.Name()))
		if err != nil {
			panic("docs: " + err.Error())
		}
		title, body, _ := strings.Cut(string(b), "\n")
		topics = append(topics, Topic{
			Name:  strings.TrimSuffix(e.Name(), ".md"),
			Title: strings.TrimSpace(strings.TrimPrefix(title, "# ")),
			Body:  strings.TrimSpace(body),
		})
	}
	return topics
}
