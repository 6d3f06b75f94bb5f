package stats

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed report.html.tmpl
var reportSource string

// reportTemplate is parsed once; html/template escapes every name and text
// for the context it lands in.
var reportTemplate = template.Must(template.New("report").Parse(reportSource))

// RenderHTML writes s as a self-contained HTML document: summary figures, an
// inline SVG chart of calls over time, an inline SVG chart of the duration
// of each tool (average and 95th percentile) and a per-tool table grouped by
// pack. It loads nothing: no script, no stylesheet, font or image from
// elsewhere (its Content-Security-Policy forbids them too). Every name is
// escaped.
func RenderHTML(w io.Writer, s Summary) error {
	return reportTemplate.Execute(w, buildView(s))
}

// WriteReport renders s (RenderHTML) to output inside the reports directory
// (Options.ReportsDir) and returns the written file's absolute path, the
// html_report of ot.stats. A relative output is taken from the reports
// directory, which is created when missing; an absolute one must lie inside
// it. A path that leaves it (.., an absolute path elsewhere, a symbolic link
// leading out) is refused with ErrOutsideReportsDir; a name that cannot be
// a report's (empty, a directory, not ending in .html or .htm) with
// ErrInvalidReportPath. The file is written
// whole or not at all (a temporary file renamed). Every failure is a
// *ReportError whose text is "Error: Cannot write to '{path}': {cause}".
func (r *Recorder) WriteReport(s Summary, output string) (string, error) {
	if r == nil || r.cfg.Load() == nil {
		return "", ErrClosed // nil or the zero Recorder: make one with New
	}
	cfg := r.cfg.Load()
	return writeReport(cfg.reportsDir, output, s)
}

func writeReport(reportsDir, output string, s Summary) (string, error) {
	target := output
	if !filepath.IsAbs(target) {
		target = filepath.Join(reportsDir, output)
	}
	if abs, err := filepath.Abs(target); err == nil {
		target = abs
	}
	fail := func(err error) (string, error) { return "", &ReportError{Path: target, Err: err} }
	if reportsDir == "" {
		return fail(errors.New("no reports directory is configured (output.reports_dir)"))
	}
	if strings.TrimSpace(output) == "" {
		return fail(invalidReportPath("the output path is empty; give a file name such as stats.html"))
	}
	if strings.ContainsRune(output, 0) {
		return fail(invalidReportPath("the output path holds a NUL byte"))
	}
	dir, err := filepath.Abs(reportsDir)
	if err != nil {
		return fail(err)
	}
	rel, err := filepath.Rel(dir, target)
	if err == nil && rel == "." {
		return fail(invalidReportPath("this is the reports directory itself; give a file name in it, such as stats.html"))
	}
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fail(fmt.Errorf("%w %s", ErrOutsideReportsDir, dir))
	}
	if ext := strings.ToLower(filepath.Ext(target)); ext != ".html" && ext != ".htm" {
		return fail(invalidReportPath("a report's file name ends in .html or .htm, such as stats.html"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(err)
	}
	if err := checkNoEscape(dir, rel); err != nil {
		return fail(err)
	}
	// os.Root enforces the boundary itself (no .., no symbolic link out),
	// also against a link planted between the check above and the write.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fail(err)
	}
	defer func() { _ = root.Close() }()
	if sub := filepath.Dir(rel); sub != "." {
		if err := root.MkdirAll(sub, 0o755); err != nil {
			return fail(err)
		}
	}
	tmp, f, err := createTemp(root, rel)
	if err != nil {
		return fail(err)
	}
	bw := bufio.NewWriter(f)
	err = RenderHTML(bw, s)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return fail(err)
	}
	return target, nil
}

// invalidReportPath is a refusal of a report path: errors.Is it
// ErrInvalidReportPath; its text is msg alone, as ot.stats shows it.
type invalidReportPath string

func (e invalidReportPath) Error() string        { return string(e) }
func (e invalidReportPath) Is(target error) bool { return target == ErrInvalidReportPath }

// checkNoEscape refuses a rel whose existing directories, followed through
// symbolic links, lead outside dir, and a rel that names a directory.
func checkNoEscape(dir, rel string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	p := dir
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			resolved, err := filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("%w %s (%s is a symbolic link that does not resolve)", ErrOutsideReportsDir, dir, p)
			}
			if r, err := filepath.Rel(real, resolved); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return fmt.Errorf("%w %s (%s links to %s)", ErrOutsideReportsDir, dir, p, resolved)
			}
		}
		if i == len(parts)-1 && fi.IsDir() {
			return invalidReportPath(p + " is a directory")
		}
	}
	return nil
}

// createTemp creates a new hidden file beside rel inside root.
func createTemp(root *os.Root, rel string) (string, *os.File, error) {
	base := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp")
	var err error
	for i := range 100 {
		name := base + strconv.FormatInt(time.Now().UnixNano()+int64(i), 36)
		var f *os.File
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return name, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return "", nil, err
}

// The report's view: every number formatted and every coordinate computed
// here, so the template only places them.
type reportView struct {
	Period, Range, Tool, Generated string
	TotalCalls, SuccessRate        string
	ContextSaved, TimeSaved        string
	Corrupt                        int64
	Truncated                      bool
	Timeline                       timelineChart
	Durations                      durationChart
	Packs                          []packGroup
}

type timelineChart struct {
	Width, Height                    int
	Left, Right, Top, Bottom, LabelX float64
	YMax                             string
	Bars                             []timeBar
	Labels                           []axisLabel
}

type timeBar struct {
	X, W, YOk, HOk, YFail, HFail float64
	Title                        string
}

type axisLabel struct {
	X, Y         float64
	Text, Anchor string
}

type durationChart struct {
	Width, Height     int
	NameX, BarX, BarH float64
	Rows              []durationRow
	More              int
}

type durationRow struct {
	Y, TextY, AvgW, P95X, P95Y2, ValueX float64
	Label, Value, Title                 string
}

type packGroup struct {
	Name, Calls string
	Tools       []toolRow
}

type toolRow struct {
	Tool, Calls, Success, Avg, P50, P95, Errors, In, Out string
}

// Layout of the charts, in SVG user units.
const (
	chartWidth     = 1000
	timelineHeight = 240
	plotLeft       = 60
	plotRight      = 985
	plotTop        = 12
	plotBottom     = 205
	durationRows   = 25
	rowHeight      = 24
	nameWidth      = 300
	valueWidth     = 200
)

func buildView(s Summary) reportView {
	v := reportView{
		Period:       s.Period,
		Tool:         s.Tool,
		Generated:    time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		TotalCalls:   strconv.FormatInt(s.TotalCalls, 10),
		SuccessRate:  strconv.FormatFloat(s.SuccessRate, 'f', -1, 64) + " %",
		ContextSaved: strconv.FormatInt(s.ContextSaved, 10),
		TimeSaved:    humanMs(s.TimeSavedMs),
		Corrupt:      s.CorruptLines,
		Truncated:    s.Truncated,
	}
	if v.Period == "" {
		v.Period = PeriodAll
	}
	if s.Since.IsZero() {
		v.Range = "all records to " + s.Until.UTC().Format("2006-01-02 15:04 UTC")
	} else {
		v.Range = s.Since.UTC().Format("2006-01-02 15:04") + " to " + s.Until.UTC().Format("2006-01-02 15:04 UTC")
	}
	v.Timeline = buildTimeline(s.Timeline)
	v.Durations = buildDurations(s.Tools)
	v.Packs = buildPacks(s.Tools)
	return v
}

func buildTimeline(buckets []Bucket) timelineChart {
	c := timelineChart{Width: chartWidth, Height: timelineHeight, Left: plotLeft, Right: plotRight,
		Top: plotTop, Bottom: plotBottom, LabelX: plotLeft - 6}
	var top int64
	for _, b := range buckets {
		top = max(top, b.Calls)
	}
	if top == 0 {
		return c
	}
	c.YMax = strconv.FormatInt(top, 10)
	n := len(buckets)
	slot := float64(plotRight-plotLeft) / float64(n)
	gap := min(slot*0.15, 4)
	layout := "Jan 2"
	if w := buckets[0].End.Sub(buckets[0].Start); w < 24*time.Hour {
		layout = "Jan 2 15:04"
	}
	h := float64(plotBottom - plotTop)
	for i, b := range buckets {
		x := plotLeft + float64(i)*slot
		hAll := h * float64(b.Calls) / float64(top)
		hFail := h * float64(b.Failures) / float64(top)
		c.Bars = append(c.Bars, timeBar{
			X: round2(x + gap/2), W: round2(slot - gap),
			YOk: round2(plotBottom - hAll), HOk: round2(hAll - hFail),
			YFail: round2(plotBottom - hFail), HFail: round2(hFail),
			Title: fmt.Sprintf("%s UTC: %d call(s), %d failed", bucketSpan(b.Start, b.End), b.Calls, b.Failures),
		})
	}
	ticks := min(n, 6)
	for k := range ticks {
		i := k * (n - 1) / max(ticks-1, 1)
		l := axisLabel{X: round2(plotLeft + (float64(i)+0.5)*slot), Y: plotBottom + 18,
			Text: buckets[i].Start.UTC().Format(layout), Anchor: "middle"}
		switch { // the outer labels stay inside the chart
		case ticks > 1 && k == 0:
			l.X, l.Anchor = round2(plotLeft+gap/2), "start"
		case ticks > 1 && k == ticks-1:
			l.X, l.Anchor = plotRight, "end"
		}
		c.Labels = append(c.Labels, l)
	}
	return c
}

func buildDurations(tools []ToolSummary) durationChart {
	c := durationChart{Width: chartWidth, NameX: nameWidth - 8, BarX: nameWidth, BarH: rowHeight - 8}
	rows := tools
	if len(rows) > durationRows {
		c.More = len(rows) - durationRows
		rows = rows[:durationRows]
	}
	c.Height = max(len(rows)*rowHeight+16, 60)
	var top float64
	for _, t := range rows {
		top = max(top, t.P95Ms, t.AvgMs)
	}
	span := float64(chartWidth - nameWidth - valueWidth)
	scale := func(v float64) float64 {
		if top <= 0 {
			return 0
		}
		return span * v / top
	}
	for i, t := range rows {
		y := float64(8 + i*rowHeight)
		c.Rows = append(c.Rows, durationRow{
			Y: y, TextY: y + rowHeight/2, AvgW: round2(max(scale(t.AvgMs), 1)),
			P95X: round2(nameWidth + scale(t.P95Ms)), P95Y2: y + rowHeight - 8,
			ValueX: nameWidth + span + 14,
			Label:  t.Tool,
			Value:  "avg " + humanDur(t.AvgMs) + " · p95 " + humanDur(t.P95Ms),
			Title:  fmt.Sprintf("%s: %d call(s), avg %s, p50 %s, p95 %s", t.Tool, t.Calls, humanDur(t.AvgMs), humanDur(t.P50Ms), humanDur(t.P95Ms)),
		})
	}
	return c
}

// noPack names the group of tools without a pack in the table.
const noPack = "(no pack)"

func buildPacks(tools []ToolSummary) []packGroup {
	byPack := map[string][]ToolSummary{}
	for _, t := range tools {
		byPack[t.Pack] = append(byPack[t.Pack], t)
	}
	names := make([]string, 0, len(byPack))
	for p := range byPack {
		names = append(names, p)
	}
	slices.SortFunc(names, func(a, b string) int { // packs by name, tools without one last
		if (a == "") != (b == "") {
			if a == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(a, b)
	})
	out := make([]packGroup, 0, len(names))
	for _, p := range names {
		g := packGroup{Name: p}
		if p == "" {
			g.Name = noPack
		}
		var calls int64
		for _, t := range byPack[p] {
			calls += t.Calls
			g.Tools = append(g.Tools, toolRow{
				Tool: t.Tool, Calls: strconv.FormatInt(t.Calls, 10),
				Success: strconv.FormatFloat(t.SuccessRate, 'f', -1, 64) + " %",
				Avg:     humanDur(t.AvgMs), P50: humanDur(t.P50Ms), P95: humanDur(t.P95Ms),
				Errors: errorsText(t.Errors),
				In:     strconv.FormatInt(t.BytesIn, 10), Out: strconv.FormatInt(t.BytesOut, 10),
			})
		}
		g.Calls = strconv.FormatInt(calls, 10)
		out = append(out, g)
	}
	return out
}

// errorsText lists error counts by type, most frequent first: "timeout 3, not_found 1".
func errorsText(errs map[string]int64) string {
	if len(errs) == 0 {
		return "–"
	}
	types := make([]string, 0, len(errs))
	for t := range errs {
		types = append(types, t)
	}
	slices.SortFunc(types, func(a, b string) int {
		if errs[a] != errs[b] {
			if errs[a] > errs[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = t + " " + strconv.FormatInt(errs[t], 10)
	}
	return strings.Join(parts, ", ")
}

// humanDur formats milliseconds for reading.
func humanDur(msv float64) string {
	switch {
	case msv >= 1000:
		return strconv.FormatFloat(msv/1000, 'f', 2, 64) + " s"
	case msv >= 10:
		return strconv.FormatFloat(msv, 'f', 1, 64) + " ms"
	default:
		return strconv.FormatFloat(msv, 'f', 3, 64) + " ms"
	}
}

// humanMs formats a saved time: milliseconds, seconds, minutes or hours.
// It computes in float64: a time.Duration overflows past 292 years, which
// calls × a large time_per_call_ms reaches.
func humanMs(v int64) string {
	ms := float64(v)
	switch {
	case ms >= 3_600_000:
		return strconv.FormatFloat(ms/3_600_000, 'f', 1, 64) + " h"
	case ms >= 60_000:
		return strconv.FormatFloat(ms/60_000, 'f', 1, 64) + " min"
	default:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// bucketSpan writes a time bucket's span for a bar's title: the end's
// date too when it falls on another day ("2026-11-29 00:00 – 2026-11-30
// 00:00"), so that a day's bucket does not read as an empty interval.
func bucketSpan(start, end time.Time) string {
	start, end = start.UTC(), end.UTC()
	if start.YearDay() == end.YearDay() && start.Year() == end.Year() {
		return start.Format("2006-01-02 15:04") + " – " + end.Format("15:04")
	}
	return start.Format("2006-01-02 15:04") + " – " + end.Format("2006-01-02 15:04")
}
