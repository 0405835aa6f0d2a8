package sandbox

import (
	"html"
	"net/http"
	"strconv"
)

// Link targets. A paid link resource delivers {url}, and a URL that does not open makes the
// purchase a dead end. A published link carries its publisher's own externalUrl; the seeded
// links have none, so the sandbox hosts their pages itself, on the API's listener (the
// address the sandbox really listens on, whatever port it got), outside the real API's routes.

// linkPath is where the sandbox serves the page of a link resource without an externalUrl.
const linkPath = "/sandbox/links/"

// deliveredURL is the URL a paid purchase of a link resource answers: the publisher's
// externalUrl, or the page the sandbox hosts for it.
func (s *Sandbox) deliveredURL(r *resource) string {
	if r.externalURL != "" {
		return r.externalURL
	}
	return s.APIURL + linkPath + r.id
}

// apiLinkTarget is GET /sandbox/links/{id}: the page a seeded link resource points to, a
// small HTML document with its title and description. Like a page on the publisher's site,
// it is not behind the paywall; only the link resources it hosts have one (404 otherwise).
func (s *Sandbox) apiLinkTarget(w http.ResponseWriter, _ *http.Request, params []string) {
	s.world.cat.RLock()
	res, ok := s.world.byID[params[0]]
	var title, description string
	if ok {
		ok = res.kind == "link" && res.externalURL == ""
		title, description = res.title, res.description
	}
	s.world.cat.RUnlock()
	if !ok {
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	page := linkPage(title, description)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(page)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(page))
}

// linkPage is the HTML of a hosted link target.
func linkPage(title, description string) string {
	t, d := html.EscapeString(title), html.EscapeString(description)
	return "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>" + t + "</title></head>\n<body>\n<h1>" + t +
		"</h1>\n<p>" + d + "</p>\n<p>This page is the content the link delivers, served by the MindVault sandbox.</p>\n</body>\n</html>\n"
}
