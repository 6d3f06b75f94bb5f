package stats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// hostile names a tool and a pack the way an attacker would.
const (
	hostileTool = `<script>alert(1)</script>`
	hostilePack = `"><img src=x onerror=alert(2)>`
)

// reportSummary is a Summary with a few tools over a week, one of them
// named hostileTool in pack hostilePack.
func reportSummary(t *testing.T) (*Recorder, Summary) {
	t.Helper()
	rec, o := newRecorder(t, nil)
	var recs []record
	tools := []struct{ name, pack string }{{"web.search", "web"}, {"web.fetch", "web"}, {"db.query", "db"}, {hostileTool, hostilePack}, {"add", ""}}
	for i := range 300 {
		tl := tools[i%len(tools)]
		r := record{time: t0.Add(-time.Duration(i*31) * time.Minute), tool: tl.name, pack: tl.pack,
			dur: time.Duration(1+i%17) * time.Millisecond * time.Duration(1+i%len(tools)), ok: i%7 != 0, bytesIn: 20, bytesOut: 300}
		if !r.ok {
			r.errType = "timeout"
		}
		recs = append(recs, r)
	}
	seed(t, o.Dir, recs...)
	s, err := rec.Summary(context.Background(), Query{Period: PeriodWeek, Now: t0})
	require.NoError(t, err)
	require.EqualValues(t, 300, s.TotalCalls)
	return rec, s
}

// Seed 001, "Generate HTML report": the report is written at the given path
// (inside the reports directory) and that path is returned, the
// html_report of the response.
func TestStats_GenerateHTMLReport(t *testing.T) {
	rec, s := reportSummary(t)
	path, err := rec.WriteReport(s, "stats.html")
	require.NoError(t, err)
	want, err := filepath.Abs(filepath.Join(rec.cfg.Load().dir, ReportsSubdir, "stats.html"))
	require.NoError(t, err)
	assert.Equal(t, want, path)
	assert.True(t, filepath.IsAbs(path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	doc, err := html.Parse(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Len(t, findAll(doc, atom.Svg), 2, "two charts")
	assert.Contains(t, textOf(doc), "300")

	// A sub-directory is created; writing again replaces the file whole,
	// and no temporary file is left.
	sub, err := rec.WriteReport(s, filepath.Join("weekly", "r.html"))
	require.NoError(t, err)
	assert.FileExists(t, sub)
	_, err = rec.WriteReport(s, filepath.Join("weekly", "r.html"))
	require.NoError(t, err)
	ents, err := os.ReadDir(filepath.Dir(sub))
	require.NoError(t, err)
	require.Len(t, ents, 1)

	// An absolute path inside the reports directory is accepted.
	abs := filepath.Join(filepath.Dir(path), "abs.html")
	got, err := rec.WriteReport(s, abs)
	require.NoError(t, err)
	assert.Equal(t, abs, got)
}

// The report is self-contained (no script, no stylesheet, font, image or
// frame from anywhere, no event handler) and every name is escaped: a tool
// named <script>alert(1)</script> is text, not markup.
func TestReport_SelfContainedAndEscaped(t *testing.T) {
	_, s := reportSummary(t)
	var buf bytes.Buffer
	require.NoError(t, RenderHTML(&buf, s))
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)

	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.DataAtom {
		case atom.Script, atom.Link, atom.Img, atom.Iframe, atom.Object, atom.Embed, atom.Base, atom.Audio, atom.Video, atom.Source, atom.Image:
			t.Errorf("element <%s> in the report", n.Data)
		}
		if n.Data == "use" || n.Data == "foreignobject" || n.Data == "image" {
			t.Errorf("element <%s> in the report", n.Data)
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") || k == "src" || k == "href" || k == "srcset" || k == "action" || strings.Contains(strings.ToLower(a.Val), "url(") {
				t.Errorf("attribute %s=%q on <%s>", a.Key, a.Val, n.Data)
			}
		}
		if n.DataAtom == atom.Style {
			css := strings.ToLower(textOf(n))
			assert.NotContains(t, css, "url(")
			assert.NotContains(t, css, "@import")
			assert.NotContains(t, css, "@font-face")
		}
	})
	csp := ""
	for _, m := range findAll(doc, atom.Meta) {
		if strings.EqualFold(attr(m, "http-equiv"), "Content-Security-Policy") {
			csp = attr(m, "content")
		}
	}
	assert.Contains(t, csp, "default-src 'none'")

	// The hostile names are there, as text, in the chart and in the table.
	var cells, labels, packs int
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		txt := textOf(n)
		switch {
		case n.DataAtom == atom.Td && txt == hostileTool:
			cells++
		case n.Data == "text" && txt == hostileTool:
			labels++
		case n.DataAtom == atom.Th && strings.HasPrefix(txt, hostilePack+" · "):
			packs++
		}
	})
	assert.Equal(t, 1, cells, "the tool's table cell")
	assert.Equal(t, 1, labels, "the tool's label in the duration chart")
	assert.Equal(t, 1, packs, "the pack's header row")
	assert.NotContains(t, buf.String(), hostileTool, "never as raw markup")
	assert.NotContains(t, buf.String(), "<img")

	// The table groups the tools by pack: packs by name, tools without a
	// pack last.
	var groups []string
	for _, tb := range findAll(doc, atom.Tbody) {
		h := findAll(tb, atom.Th)
		require.NotEmpty(t, h)
		name, _, _ := strings.Cut(textOf(h[0]), " · ")
		groups = append(groups, name)
		assert.NotEmpty(t, findAll(tb, atom.Td))
	}
	assert.Equal(t, []string{hostilePack, "db", "web", noPack}, groups)
	var webRows int
	for _, tb := range findAll(doc, atom.Tbody) {
		if strings.HasPrefix(textOf(findAll(tb, atom.Th)[0]), "web ·") {
			webRows = len(findAll(tb, atom.Tr)) - 1
		}
	}
	assert.Equal(t, 2, webRows, "web.search and web.fetch")

	// The charts: one bar group per timeline bucket, one row per tool.
	svgs := findAll(doc, atom.Svg)
	require.Len(t, svgs, 2)
	assert.Len(t, findElems(svgs[0], "g"), len(s.Timeline))
	assert.Len(t, findElems(svgs[1], "g"), len(s.Tools))
}

// An empty summary still renders (a message instead of bars).
func TestReport_Empty(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, RenderHTML(&buf, Summary{Period: PeriodDay, Until: t0, Since: t0.Add(-24 * time.Hour), Tools: []ToolSummary{}}))
	assert.Equal(t, 3, strings.Count(buf.String(), "No calls in this period."))
}

// Reports are only written inside the reports directory: .., absolute
// paths elsewhere and symbolic links leading out are refused, and nothing
// is written outside.
func TestReport_RefusesPathsOutsideReportsDir(t *testing.T) {
	base := t.TempDir()
	reports := filepath.Join(base, "reports")
	outside := filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	rec, _ := newRecorder(t, func(o *Options) { o.ReportsDir = reports })
	require.NoError(t, os.MkdirAll(reports, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(reports, "link")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "f.html"), filepath.Join(reports, "filelink.html")))
	s := Summary{Period: PeriodAll, Until: t0}

	for _, out := range []string{
		"../outside/x.html",
		"sub/../../outside/x.html",
		filepath.Join(outside, "x.html"),
		"link/x.html",
		"..",
		".",
	} {
		_, err := rec.WriteReport(s, out)
		require.Error(t, err, out)
		var re *ReportError
		require.ErrorAs(t, err, &re, out)
		assert.True(t, strings.HasPrefix(err.Error(), "Error: Cannot write to '"), err.Error())
		if out == "." {
			assert.Contains(t, err.Error(), "this is the reports directory itself; give a file name in it", "not told it escapes the directory it is")
			continue
		}
		assert.ErrorIs(t, err, ErrOutsideReportsDir, out)
	}
	ents, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing was written outside")

	// A symbolic link as the report itself, leading out, is refused too.
	_, err = rec.WriteReport(s, "filelink.html")
	require.ErrorIs(t, err, ErrOutsideReportsDir)
	ents, err = os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, ents)
	fi, err := os.Lstat(filepath.Join(reports, "filelink.html"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "left as it was")

	// A link that stays inside is fine: the report replaces the link.
	require.NoError(t, os.WriteFile(filepath.Join(reports, "real.html"), nil, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(reports, "real.html"), filepath.Join(reports, "inside.html")))
	p, err := rec.WriteReport(s, "inside.html")
	require.NoError(t, err)
	fi, err = os.Lstat(p)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
}

// Seed 001, "HTML write error": "Error: Cannot write to '<path>': <error>".
func TestStats_HTMLWriteError(t *testing.T) {
	base := t.TempDir()
	rec, _ := newRecorder(t, func(o *Options) { o.ReportsDir = filepath.Join(base, "reports") })
	s := Summary{Period: PeriodAll, Until: t0}
	// The path names a directory: it cannot be written as a file.
	require.NoError(t, os.MkdirAll(filepath.Join(base, "reports", "report.html"), 0o755))
	_, err := rec.WriteReport(s, "report.html")
	require.Error(t, err)
	path := filepath.Join(base, "reports", "report.html")
	var re *ReportError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, path, re.Path)
	assert.Equal(t, fmt.Sprintf("Error: Cannot write to '%s': %v", path, re.Err), err.Error())
	assert.Contains(t, err.Error(), "is a directory")

	// The reports directory cannot be created: a file is in its way.
	blocked := filepath.Join(base, "blocked")
	require.NoError(t, os.WriteFile(blocked, nil, 0o644))
	rec2, _ := newRecorder(t, func(o *Options) { o.ReportsDir = filepath.Join(blocked, "reports") })
	_, err = rec2.WriteReport(s, "report.html")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "Error: Cannot write to '"+filepath.Join(blocked, "reports", "report.html")+"': "), err.Error())
	var pe *os.PathError
	assert.True(t, errors.As(err, &pe), "the cause is the file system's error")
}

// The report renders in a real browser: headless Chromium (Debian's
// chromium package, installed by .ci/run) takes a screenshot of it, which
// must show the charts and table, not a blank page. Skipped when
// /usr/bin/chromium is absent.
func TestReport_RendersInChromium(t *testing.T) {
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is absent (install Debian's chromium package, as .ci/run does): %v", chromium, err)
	}
	rec, s := reportSummary(t)
	path, err := rec.WriteReport(s, "chromium.html")
	require.NoError(t, err)
	shot := filepath.Join(t.TempDir(), "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--screenshot="+shot, "--window-size=1200,900",
		"file://"+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "chromium: %s", out)
	f, err := os.Open(shot)
	require.NoError(t, err, "chromium wrote no screenshot: %s", out)
	defer func() { _ = f.Close() }()
	img, err := png.Decode(f)
	require.NoError(t, err)
	colours, nonWhite, total := pixelStats(img)
	t.Logf("screenshot %v: %d distinct colours, %d of %d pixels not white", img.Bounds().Size(), colours, nonWhite, total)
	assert.Equal(t, image.Pt(1200, 900), img.Bounds().Size())
	assert.Greater(t, colours, 16, "text, bars and table in several colours")
	assert.Greater(t, float64(nonWhite)/float64(total), 0.03, "more than a blank page")
	// The bar colours of the charts are on screen.
	assert.True(t, hasColour(img, 0x2d, 0xa4, 0x4e), "green bars (succeeded)")
	assert.True(t, hasColour(img, 0x09, 0x69, 0xda), "blue bars (average duration)")
}

func pixelStats(img image.Image) (colours, nonWhite, total int) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			seen[r<<16|g<<8|bl] = true
			if r < 0xf0 || g < 0xf0 || bl < 0xf0 {
				nonWhite++
			}
			total++
		}
	}
	return len(seen), nonWhite, total
}

func hasColour(img image.Image, r0, g0, b0 uint32) bool {
	b := img.Bounds()
	near := func(a, b uint32) bool { return a+6 >= b && b+6 >= a }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, r0) && near(g>>8, g0) && near(bl>>8, b0) {
				return true
			}
		}
	}
	return false
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func findAll(n *html.Node, a atom.Atom) []*html.Node {
	var out []*html.Node
	walk(n, func(c *html.Node) {
		if c.Type == html.ElementNode && c.DataAtom == a {
			out = append(out, c)
		}
	})
	return out
}

// findElems finds elements by name (SVG elements have no atom of their own
// in some cases).
func findElems(n *html.Node, name string) []*html.Node {
	var out []*html.Node
	walk(n, func(c *html.Node) {
		if c.Type == html.ElementNode && c.Data == name {
			out = append(out, c)
		}
	})
	return out
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return strings.TrimSpace(b.String())
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

// A bar's title spans its bucket: with the end's date when the bucket
// ends on another day, so a day's bucket does not read "00:00 – 00:00".
func TestReport_BucketSpanNamesTheEndsDay(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	assert.Equal(t, "2026-11-29 00:00 – 2026-11-30 00:00", bucketSpan(day, day.Add(24*time.Hour)))
	assert.Equal(t, "2026-11-29 10:00 – 11:00", bucketSpan(day.Add(10*time.Hour), day.Add(11*time.Hour)))
}

// A report is written only under a name a report can have: a file
// ending in .html or .htm. Other files kept beside the reports — call
// records, a configuration — are never replaced; an empty name, a NUL
// byte or a directory are refused as the caller's mistakes
// (ErrInvalidReportPath), not as write failures.
func TestReport_OnlyHTMLNamesWritten(t *testing.T) {
	base := t.TempDir()
	rec, _ := newRecorder(t, func(o *Options) { o.ReportsDir = base })
	require.NoError(t, os.MkdirAll(filepath.Join(base, "stats"), 0o755))
	records := filepath.Join(base, "stats", "stats-2026-11-29.jsonl")
	config := filepath.Join(base, "config.yaml")
	require.NoError(t, os.WriteFile(records, []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(config, []byte("stats: {}\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "dir.html"), 0o755))
	s := Summary{Period: PeriodAll, Until: t0}

	for out, want := range map[string]string{
		"stats/stats-2026-11-29.jsonl": "ends in .html or .htm",
		"config.yaml":                  "ends in .html or .htm",
		"report":                       "ends in .html or .htm",
		"   ":                          "the output path is empty",
		"x\x00y.html":                  "NUL byte",
		"dir.html":                     "is a directory",
		".":                            "the reports directory itself",
	} {
		_, err := rec.WriteReport(s, out)
		require.ErrorIs(t, err, ErrInvalidReportPath, "%q", out)
		assert.Contains(t, err.Error(), want, "%q", out)
		assert.True(t, strings.HasPrefix(err.Error(), "Error: Cannot write to '"), err.Error())
	}
	for path, want := range map[string]string{records: "{}\n", config: "stats: {}\n"} {
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, string(got), "left as it was")
	}
	for _, out := range []string{"stats.html", "sub/Report.HTM"} {
		p, err := rec.WriteReport(s, out)
		require.NoError(t, err, out)
		assert.FileExists(t, p)
	}
}

// The report's time saved stays right however large it gets: 110,000
// calls at the largest time_per_call_ms the configuration accepts (a day)
// are 9.5e12 ms, past what a time.Duration holds.
func TestReport_TimeSavedBeyondADurationsRange(t *testing.T) {
	assert.Equal(t, "2640000.0 h", humanMs(110_000*86_400_000))
	assert.Equal(t, "2562047788015.2 h", humanMs(math.MaxInt64))
	assert.Equal(t, "1.5 h", humanMs(5_400_000))
	assert.Equal(t, "2.0 min", humanMs(120_000))
	assert.Equal(t, "3.0 s", humanMs(3000))
	assert.Equal(t, "0.0 s", humanMs(0))
}
