package tools

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/registry"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/requests"
)

// CatalogItem is one resource in a catalog page.
type CatalogItem struct {
	ID                 string `json:"id"`
	Title              string `json:"title"`
	Description        string `json:"description"`
	Price              string `json:"price" jsonschema_description:"USDC with exactly 7 decimals (\"unknown\" when the API's price is unreadable)"`
	ResourceType       string `json:"resourceType"`
	VerificationStatus string `json:"verificationStatus"`
	PublisherName      string `json:"publisherName"`
	AccessURL          string `json:"accessUrl"`
	CreatedAt          string `json:"createdAt"`
}

// maxTagReads bounds the registry reads one tag-filtered page makes at once.
const maxTagReads = 8

// chainTags fills in the tags of the rows that carry none from the vault registry: the real
// API keeps tags on chain only (its rows have no tags, and it refuses ?tags=), so a tag filter
// applied to the rows alone would match nothing. A row not on chain has no tags; a failed
// read fails the call rather than dropping a row that may match.
func chainTags(ctx context.Context, d *Deps, rows []mindvault.Resource) error {
	errs := make([]error, len(rows))
	sem := make(chan struct{}, maxTagReads)
	var fns []func()
	for i := range rows {
		if rows[i].Tags != nil {
			continue
		}
		fns = append(fns, func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			rows[i].Tags = []string{}
			if !registry.OnchainID(rows[i].ID) {
				return
			}
			e, found, err := d.Registry.Get(ctx, rows[i].ID)
			if err != nil {
				errs[i] = err
				return
			}
			if found {
				rows[i].Tags = e.Tags
			}
		})
	}
	parallel(fns...)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// usdc7 is a USDC amount as every structured result states it: a decimal string with exactly
// 7 places ("1.5000000"), from the API's "1.50", "1.5" or 1.5; "unknown" when it is not one.
func usdc7(s string) string {
	u, err := soroban.Units(strings.TrimSpace(s))
	if err != nil {
		return "unknown"
	}
	return soroban.Decimal(u)
}

// CatalogOutput is the result of mindvault_browse and mindvault_search.
type CatalogOutput struct {
	Resources  []CatalogItem `json:"resources"`
	Count      int           `json:"count"`
	Total      *int          `json:"total,omitempty" jsonschema_description:"catalog rows matching the server-side filters (X-Total-Count)"`
	NextOffset *int          `json:"nextOffset,omitempty" jsonschema_description:"offset of the next page; absent on the last page"`
	Freshness  string        `json:"freshness,omitempty" jsonschema_description:"cache age notice from the API's cache headers"`
	Message    string        `json:"message,omitempty" jsonschema_description:"only on an empty page: the criteria that matched nothing"`
}

// browse is mindvault_browse.
var browse = Spec[requests.Browse, CatalogOutput]{
	Name:      "mindvault_browse",
	Toolset:   config.ToolsetCatalog,
	Title:     "Browse the catalog",
	Operation: "Browse failed",
	Description: `Lists paid knowledge resources in the MindVault catalog with optional filters (keyword,
		price range, verification status, type, owner, tags, listed), sort and paging. Free. Follow
		with mindvault_preview for one resource's details and price, then mindvault_buy.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleFind, NoID: true},
	Run: func(ctx context.Context, c *Call, req *requests.Browse) (*CatalogOutput, error) {
		return catalog(ctx, c.Deps, req, false)
	},
}

// search is mindvault_search.
var search = Spec[requests.Search, CatalogOutput]{
	Name:      "mindvault_search",
	Toolset:   config.ToolsetCatalog,
	Title:     "Search the catalog",
	Operation: "Search failed",
	Description: `Searches the MindVault catalog by keyword and/or filters (at least one criterion). Free.
		Returns count 0 with a message when nothing matches. Follow with mindvault_preview, then
		mindvault_buy.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleFind, NoID: true},
	Run: func(ctx context.Context, c *Call, req *requests.Search) (*CatalogOutput, error) {
		return catalog(ctx, c.Deps, (*requests.Browse)(req), true)
	},
}

// catalog sends the server-supported filters, then applies locally what the API cannot
// (keyword on title+description, the skipped status, tags, listed) and re-applies the order.
func catalog(ctx context.Context, d *Deps, req *requests.Browse, search bool) (*CatalogOutput, error) {
	q := mindvault.CatalogQuery{Limit: req.Limit, Offset: req.Offset}
	q.Search = deref(req.Query)
	q.MinPrice, q.MaxPrice = deref(req.MinPrice), deref(req.MaxPrice)
	if s := deref(req.VerificationStatus); s != "skipped" {
		q.VerificationStatus = s
	}
	q.ResourceType, q.Owner, q.Sort = deref(req.ResourceType), deref(req.Owner), deref(req.Sort)
	page, err := d.API.Catalog(ctx, q)
	if err != nil {
		return nil, err
	}
	out := &CatalogOutput{Resources: []CatalogItem{}, Total: page.Total, NextOffset: page.NextOffset}
	if len(req.Tags) > 0 {
		if err := chainTags(ctx, d, page.Resources); err != nil {
			return nil, err
		}
	}
	for _, r := range page.Resources {
		if keep(r, req) {
			out.Resources = append(out.Resources, CatalogItem{
				ID: r.ID, Title: r.Title, Description: r.Description, Price: usdc7(string(r.Price)),
				ResourceType: r.ResourceType, VerificationStatus: r.VerificationStatus,
				PublisherName: r.PublisherName, AccessURL: r.AccessURL, CreatedAt: r.CreatedAt,
			})
		}
	}
	order(out.Resources, deref(req.Sort))
	out.Count = len(out.Resources)
	if !search {
		out.Freshness = freshness(page, time.Now())
	}
	if out.Count == 0 {
		out.Message = emptyMessage(req)
	}
	return out, nil
}

func keep(r mindvault.Resource, req *requests.Browse) bool {
	if q := deref(req.Query); q != "" && !strings.Contains(strings.ToLower(r.Title+" "+r.Description), strings.ToLower(q)) {
		return false
	}
	if deref(req.VerificationStatus) == "skipped" && r.VerificationStatus != "skipped" {
		return false
	}
	if req.Listed != nil {
		listed := r.Listed == nil || *r.Listed // the public catalog only serves listed rows
		if listed != *req.Listed {
			return false
		}
	}
	for _, want := range req.Tags {
		found := false
		for _, t := range r.Tags {
			if strings.EqualFold(t, want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func order(items []CatalogItem, by string) {
	price := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return new(big.Rat)
		}
		return r
	}
	switch by {
	case "price_asc":
		sort.SliceStable(items, func(i, j int) bool { return price(items[i].Price).Cmp(price(items[j].Price)) < 0 })
	case "price_desc":
		sort.SliceStable(items, func(i, j int) bool { return price(items[i].Price).Cmp(price(items[j].Price)) > 0 })
	case "title":
		sort.SliceStable(items, func(i, j int) bool { return strings.ToLower(items[i].Title) < strings.ToLower(items[j].Title) })
	default: // newest
		sort.SliceStable(items, func(i, j int) bool { return items[i].CreatedAt > items[j].CreatedAt })
	}
}

// emptyMessage describes the criteria that matched nothing.
func emptyMessage(req *requests.Browse) string {
	var parts []string
	add := func(label string, v *string) {
		if v != nil {
			parts = append(parts, label+" "+*v)
		}
	}
	if req.Query != nil {
		parts = append(parts, strconv.Quote(*req.Query))
	}
	add("minPrice", req.MinPrice)
	add("maxPrice", req.MaxPrice)
	add("status", req.VerificationStatus)
	add("type", req.ResourceType)
	add("owner", req.Owner)
	if len(req.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(req.Tags, ","))
	}
	if req.Listed != nil {
		parts = append(parts, "listed "+strconv.FormatBool(*req.Listed))
	}
	if len(parts) == 0 {
		if req.Offset > 0 {
			return fmt.Sprintf("No resources at offset %d; the catalog has fewer rows.", req.Offset)
		}
		return "No resources listed yet."
	}
	return "No resources match " + strings.Join(parts, ", ") + "."
}

// freshness turns the API's cache headers into a one-line notice ("" when they say nothing).
func freshness(p *mindvault.Page, now time.Time) string {
	age := -1
	if n, err := strconv.Atoi(strings.TrimSpace(p.Age)); err == nil && n >= 0 {
		age = n
	} else if t, err := time.Parse(time.RFC1123, p.Date); err == nil {
		age = max(0, int(now.Sub(t).Seconds()))
	}
	maxAge := -1
	noCache := false
	for _, dir := range strings.Split(strings.ToLower(p.CacheControl), ",") {
		dir = strings.TrimSpace(dir)
		if v, ok := strings.CutPrefix(dir, "s-maxage="); ok {
			maxAge, _ = strconv.Atoi(v)
		} else if v, ok := strings.CutPrefix(dir, "max-age="); ok && maxAge < 0 {
			maxAge, _ = strconv.Atoi(v)
		}
		if dir == "no-cache" || dir == "no-store" || dir == "must-revalidate" {
			noCache = true
		}
	}
	switch {
	case age >= 0 && maxAge >= 0 && age > maxAge:
		return fmt.Sprintf("Catalog cache age %ds exceeds max-age %ds: the listing may be stale; browse again or check on-chain with mindvault_registry_lookup.", age, maxAge)
	case age >= 0 && maxAge >= 0:
		return fmt.Sprintf("Catalog cache age: %ds (max-age %ds), fresh.", age, maxAge)
	case noCache:
		return "The API marks the catalog as not cacheable: prices and listings may change at any time."
	case age >= 0:
		return fmt.Sprintf("Catalog cache age: %ds.", age)
	}
	return ""
}
