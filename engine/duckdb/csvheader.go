package duckdb

import (
	"bufio"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/efmesh/efmesh/engine"
)

// A CSV file with a header names its columns, and a reader given declared
// columns with the sniffer off (auto_detect = false, for speed) takes them
// by position: a producer that writes v,k,id,ts where id,k,v,ts was
// declared would swap the values silently. So the header line of each
// local file is read here (one line, no sniffing) when the query is
// rendered, and the reader is given the columns in the order the file
// names them; the query then selects the declared ones by name. Files
// whose headers differ are read apart and combined by name.

// csvHeaderGroups expands the local paths of a CSV read and groups the
// files by header (lower-cased names, in the file's order). ok is false
// when the files cannot be listed or read here (a URL, a "**" glob, an
// unreadable file): the reader then takes the declared order.
func csvHeaderGroups(paths []string, opts []engine.FileOption) (groups []csvGroup, ok bool) {
	delim := ','
	for _, o := range opts {
		switch strings.ToLower(o.Name) {
		case "header":
			if !strings.EqualFold(o.Value, "true") {
				return nil, false
			}
		case "delim", "sep":
			r := []rune(o.Value)
			if len(r) != 1 {
				return nil, false
			}
			delim = r[0]
		case "skip", "quote", "escape", "new_line", "comment":
			return nil, false
		}
	}
	at := map[string]int{}
	for _, p := range paths {
		if strings.Contains(p, "://") || strings.Contains(p, "**") {
			return nil, false
		}
		files, err := filepath.Glob(p)
		if err != nil || len(files) == 0 {
			return nil, false
		}
		for _, f := range files {
			h, err := readCSVHeader(f, delim)
			if err != nil {
				return nil, false
			}
			key := strings.ToLower(strings.Join(h, "\x00"))
			i, seen := at[key]
			if !seen {
				i = len(groups)
				at[key] = i
				groups = append(groups, csvGroup{header: h})
			}
			groups[i].files = append(groups[i].files, f)
		}
	}
	return groups, len(groups) > 0
}

// csvGroup is files sharing one header.
type csvGroup struct {
	header []string
	files  []string
}

// readCSVHeader reads the first record of the CSV file at path.
func readCSVHeader(path string, delim rune) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(io.LimitReader(f, 1<<20)))
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rec, err := r.Read()
	if err != nil {
		return nil, err
	}
	if len(rec) > 0 { // a UTF-8 byte order mark is not part of the name
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	return rec, nil
}

// csvColumnsInFileOrder is the columns argument for files with header h:
// each header name (without case or surrounding spaces) as the declared
// column it names, with its declared type, or as itself, VARCHAR, when
// not declared (it is not read). A declared column the header lacks is
// not there to read: selecting it by name fails to bind, as it should.
func csvColumnsInFileOrder(h []string, declared []engine.Column) []engine.Column {
	byName := make(map[string]engine.Column, len(declared))
	for _, c := range declared {
		byName[strings.ToLower(c.Name)] = c
	}
	out := make([]engine.Column, len(h))
	for i, n := range h {
		n = strings.TrimSpace(n)
		c, ok := byName[strings.ToLower(n)]
		if !ok {
			c = engine.Column{Name: n, Type: "VARCHAR"}
		}
		delete(byName, strings.ToLower(n))
		out[i] = c
	}
	return out
}
