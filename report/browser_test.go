package report

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kurabe/result"
)

const chromium = "/usr/bin/chromium"

// TestHTMLInHeadlessChromium opens the HTML report in headless Chromium
// (Debian's chromium package), takes a screenshot 800 px wide and checks
// that the page logged nothing to the console and that the charts were
// drawn: their bars and lines, in the palette's colours, cover a good part
// of the screenshot below the tables. That the page asks for nothing from
// the network is checked in TestHTMLIsSelfContained.
func TestHTMLInHeadlessChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("KURABE_REQUIRE_BROWSER") == "1" {
			t.Fatalf("KURABE_REQUIRE_BROWSER=1 but %s is missing: %v (Debian: apt-get install chromium)", chromium, err)
		}
		t.Skipf("%s not installed (Debian: apt-get install chromium); the report is not checked in a browser. KURABE_REQUIRE_BROWSER=1 makes this a failure", chromium)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := writeHTML(&b, English, nil, []*result.Document{richDoc()}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--enable-logging=stderr", "--log-level=0",
		"--screenshot="+shot, "--window-size=800,2000", "file://"+page)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	// Console messages (errors included) are logged as INFO:CONSOLE.
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, ":CONSOLE") || strings.Contains(line, "Failed to load resource") || strings.Contains(line, "net::ERR_") {
			t.Errorf("browser: %s", line)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, out)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 800 {
		t.Fatalf("screenshot %v", img.Bounds())
	}
	// Count pixels in each store's colour (file: blue, sqlite:
	// vermillion) and where the first and last of them are.
	blue, verm := okabeIto[0], okabeIto[1]
	var nBlue, nVerm int
	top, bottom := img.Bounds().Max.Y, 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			c := img.At(x, y)
			switch {
			case near(c, blue):
				nBlue++
			case near(c, verm):
				nVerm++
			default:
				continue
			}
			top, bottom = min(top, y), max(bottom, y)
		}
	}
	t.Logf("screenshot %v: %d blue and %d vermillion pixels in rows %d..%d", img.Bounds(), nBlue, nVerm, top, bottom)
	if nBlue < 5000 || nVerm < 1000 {
		t.Errorf("charts look empty: %d blue and %d vermillion pixels", nBlue, nVerm)
	}
	if bottom-top < 300 {
		t.Errorf("chart colours span only rows %d..%d", top, bottom)
	}
	if t.Failed() {
		keep := filepath.Join(os.TempDir(), "kurabe-report-screenshot.png")
		if b, err := os.ReadFile(shot); err == nil && os.WriteFile(keep, b, 0o644) == nil {
			t.Logf("screenshot kept at %s", keep)
		}
	}
}

// near reports whether c is within a small distance of want (antialiasing
// and colour management shift colours a little).
func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, b uint8) int { return int(a>>8) - int(b) }
	abs := func(x int) int { return max(x, -x) }
	return abs(d(r, want.R))+abs(d(g, want.G))+abs(d(b, want.B)) < 40
}
