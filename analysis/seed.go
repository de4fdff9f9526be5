package analysis

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/efmesh/efmesh/engine"
	"github.com/efmesh/efmesh/project"
)

// A seed is read whole when it is checked — by plan, by apply before
// anything runs, and by the editor — so a broken file (a row with the wrong
// number of fields, a value that does not cast to its declared type) is a
// diagnostic at its line, never a failed build halfway through an apply.

// seedChecks remembers the problems of seed contents already read: the
// editor re-checks seeds on every edit, the file rarely changes. Keyed by
// content hash and reader spec; cleared when it grows past seedChecksMax.
var seedChecks = struct {
	sync.Mutex
	m map[string][]engine.FileProblem
}{m: map[string][]engine.FileProblem{}}

const seedChecksMax = 256

// checkSeed validates the seed file of m (its content hash is hash) with
// the workbench's file validator, if it has one. Each record that does not
// load is an error on the seed file at its line, and the model gets a
// pointer (information) on its kind saying the seed does not load. With
// declared columns, an empty CSV file or a header that does not name them
// in order is one error at the file's line 1, and the records are not
// read: the reader would load an empty file as no rows.
func (c *checker) checkSeed(ctx context.Context, m *project.Model, hash string) bool {
	v, ok := c.wb.(engine.FileValidator)
	if !ok || c.eng == nil {
		return true
	}
	path := AbsPath(c.root, m.Kind.Path)
	spec := engine.FileSpec{Paths: []string{path}, Format: SeedFormat(m.Kind.Path), Columns: Declared(m)}
	if spec.Format == "csv" && len(spec.Columns) > 0 {
		if msg, empty := headerMismatch(path, spec.Columns); msg != "" {
			src, _ := os.ReadFile(path)
			start, end := lineSpan(src, 1)
			c.add(m, project.NewDiagnostic(m.Kind.Path, src, start, end, project.SeverityError, project.CodeFile, msg))
			why := "its header (line 1) does not name the declared columns"
			if empty {
				why = "it is empty, without the header (line 1) naming the declared columns"
			}
			c.seedPointer(m, fmt.Sprintf("seed file %s does not load: %s", m.Kind.Path, why))
			return false
		}
	}
	key := hash + "\x00" + spec.Format + "\x00" + fmt.Sprint(spec.Columns)
	seedChecks.Lock()
	problems, known := seedChecks.m[key]
	seedChecks.Unlock()
	if !known {
		var err error
		if problems, err = v.ValidateFiles(ctx, spec); err != nil {
			if ctx.Err() != nil {
				return true // a newer check replaces this one
			}
			problems = []engine.FileProblem{{Path: path, Message: FirstLine(ErrMessage(err))}}
		}
		seedChecks.Lock()
		if len(seedChecks.m) >= seedChecksMax {
			clear(seedChecks.m)
		}
		seedChecks.m[key] = problems
		seedChecks.Unlock()
	}
	if len(problems) == 0 {
		return true
	}
	src, _ := os.ReadFile(path)
	var lines []string
	for _, p := range problems {
		msg := seedMessage(p)
		if p.Line > 0 {
			start, end := lineSpan(src, p.Line)
			c.add(m, project.NewDiagnostic(m.Kind.Path, src, start, end, project.SeverityError, project.CodeFile, msg))
			lines = append(lines, fmt.Sprint(p.Line))
		} else {
			c.propDiag(m, "kind", project.CodeFile, fmt.Sprintf("seed file %s does not load: %s", m.Kind.Path, msg))
		}
	}
	if len(lines) > 0 {
		const most = 5
		list := strings.Join(lines[:min(len(lines), most)], ", ")
		if len(lines) > most {
			list += fmt.Sprintf(" and %d more", len(lines)-most)
		}
		c.seedPointer(m, fmt.Sprintf("seed file %s does not load: %d bad record(s), at line %s", m.Kind.Path, len(lines), list))
	}
	return false
}

// seedPointer says on the kind of m that its seed file has errors, as
// information: the errors are the seed file's, at their lines (counted
// once), and the pointer shows them to an editor where only the model is
// open.
func (c *checker) seedPointer(m *project.Model, msg string) {
	start, end := m.Header.Start.Offset, m.Header.Start.Offset
	if p, ok := m.Property("kind"); ok {
		start, end = p.Range.Start.Offset, p.Range.End.Offset
	}
	c.add(m, m.Diagnostic(start, end, project.SeverityInfo, project.CodeFile, msg))
}

// headerMismatch says how the header line of the CSV file at path fails
// to name the declared columns cols, in order (case aside): the reader
// takes the columns by position, so a misspelt or reordered header would
// load silently wrong or fail on a cast. "" when it names them. Only the
// header is read. empty says the file holds no line at all.
func headerMismatch(path string, cols []engine.Column) (msg string, empty bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false // the reader says what is wrong
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	if errors.Is(err, io.EOF) {
		// The reader loads an empty file as no rows, without a word, and
		// the seed's table and everything downstream would be emptied. A
		// seed of no rows is a header alone.
		return fmt.Sprintf("the seed file is empty: its first line must be a header naming the declared columns, %s", strings.Join(names, ", ")), true
	}
	if err != nil {
		return "", false // an unreadable file: the reader says what is wrong
	}
	header[0] = strings.TrimPrefix(header[0], "\ufeff")
	want := fmt.Sprintf("(columns are read by position: the header must be %s)", strings.Join(names, ", "))
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	if len(header) != len(cols) {
		return fmt.Sprintf("the header names %d columns (%s), where %d are declared %s", len(header), strings.Join(header, ", "), len(cols), want), false
	}
	for i, h := range header {
		if !strings.EqualFold(h, cols[i].Name) {
			return fmt.Sprintf("the header names column %d %s, where the declared column is %s %s", i+1, h, cols[i].Name, want), false
		}
	}
	return "", false
}

// seedMessage says what is wrong with one record, in the reader's words
// without its advice (which names reader options a seed does not take).
func seedMessage(p engine.FileProblem) string {
	msg := strings.TrimSpace(FirstLine(p.Message))
	if p.Column != "" && !strings.Contains(msg, p.Column) {
		msg = "column " + p.Column + ": " + msg
	}
	return msg
}

// lineSpan returns the byte range of the 1-based line n of src (without
// its line break); past the end, the end of src.
func lineSpan(src []byte, n int) (int, int) {
	start := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src[start:], '\n')
		if j < 0 {
			return len(src), len(src)
		}
		start += j + 1
	}
	end := start
	if j := bytes.IndexByte(src[start:], '\n'); j >= 0 {
		end += j
	} else {
		end = len(src)
	}
	if end > start && src[end-1] == '\r' {
		end--
	}
	return start, end
}
