package tools

import (
	"cmp"
	"context"
	"fmt"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mindvault/mcp-endpoint/errmap"
	"github.com/mindvault/mcp-endpoint/internal/clients/mindvault"
	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
	"github.com/mindvault/mcp-endpoint/internal/config"
	"github.com/mindvault/mcp-endpoint/validate"
)

// BrowseInput is mindvault_browse: every catalog filter, none required.
type BrowseInput struct {
	Query              *string  `json:"query,omitempty" validate:"omitnil,min=1,max=256" jsonschema_description:"Keyword matched against title and description (case-insensitive)."`
	MinPrice           *string  `json:"minPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Lowest price in USDC, a string or a number with at most 7 decimals, e.g. 0.5 or \"0.5\"."`
	MaxPrice           *string  `json:"maxPrice,omitempty" validate:"omitnil,usdc" jsonschema_description:"Highest price in USDC, a string or a number with at most 7 decimals; must not be below minPrice."`
	VerificationStatus *string  `json:"verificationStatus,omitempty" validate:"omitnil,oneof=pending verified rejected skipped" jsonschema_description:"Only resources with this verification status."`
	ResourceType       *string  `json:"resourceType,omitempty" validate:"omitnil,oneof=file link" jsonschema_description:"Only files or only links."`
	Owner              *string  `json:"owner,omitempty" validate:"omitnil,min=1,max=128" jsonschema_description:"Publisher name or wallet address (substring match)."`
	Sort               *string  `json:"sort,omitempty" validate:"omitnil,oneof=newest price_asc price_desc title" jsonschema_description:"Order of the results (default newest)."`
	Limit              int      `json:"limit,omitempty" validate:"min=1,max=100" jsonschema:"default=20" jsonschema_description:"Page size, 1-100."`
	Offset             int      `json:"offset,omitempty" validate:"min=0,max=9007199254740991" jsonschema:"default=0" jsonschema_description:"Rows to skip; use nextOffset from the previous page. At most 9007199254740991 (2^53-1), the largest integer the API reads exactly."`
	Tags               []string `json:"tags,omitempty" validate:"omitempty,max=8,dive,tag" jsonschema_description:"Only resources carrying all these tags (lower-cased)."`
	Listed             *bool    `json:"listed,omitempty" jsonschema_description:"Only listed (true) or only delisted (false) resources."`
}

// CrossCheck enforces minPrice ≤ maxPrice.
func (b *BrowseInput) CrossCheck() []errmap.Issue { return priceRange(b.MinPrice, b.MaxPrice) }

// SearchInput is mindvault_search: the browse filters, at least one of them required.
type SearchInput BrowseInput

// CrossCheck enforces minPrice ≤ maxPrice and at least one criterion (reported at /query).
func (s *SearchInput) CrossCheck() []errmap.Issue {
	if issues := priceRange(s.MinPrice, s.MaxPrice); issues != nil {
		return issues
	}
	if s.Query == nil && s.MinPrice == nil && s.MaxPrice == nil && s.VerificationStatus == nil &&
		s.ResourceType == nil && s.Owner == nil && len(s.Tags) == 0 && s.Listed == nil {
		return []errmap.Issue{{Path: "/query", Rule: "required_without_all", Expected: "a query or at least one filter",
			Message: "is required unless another filter (minPrice, maxPrice, verificationStatus, resourceType, owner, tags, listed) is given"}}
	}
	return nil
}

// priceRange reports minPrice > maxPrice. Both are already valid decimal strings.
func priceRange(min, max *string) []errmap.Issue {
	if min == nil || max == nil {
		return nil
	}
	lo, ok1 := new(big.Rat).SetString(*min)
	hi, ok2 := new(big.Rat).SetString(*max)
	if ok1 && ok2 && lo.Cmp(hi) > 0 {
		return []errmap.Issue{{Path: "/minPrice", Rule: "ltefield", Expected: "at most maxPrice", Message: "must not be greater than maxPrice"}}
	}
	return nil
}

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

// chainTags fills in the tags of rows that carry none from the vault registry, where the API
// keeps them; a failed read fails the call rather than dropping a row that may match.
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
			if !validate.OnchainID(rows[i].ID) {
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
	return cmp.Or(errs...)
}

// usdc7 is a USDC amount as every result states it, with exactly 7 places; "unknown" when it is not one.
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

var browse = Spec[BrowseInput, CatalogOutput]{
	Name:      "mindvault_browse",
	Toolset:   config.ToolsetCatalog,
	Title:     "Browse the catalog",
	Operation: "Browse failed",
	Description: `Lists paid knowledge resources in the MindVault catalog with optional filters (keyword,
		price range, verification status, type, owner, tags, listed), sort and paging. Free. Follow
		with mindvault_preview for one resource's details and price, then mindvault_buy.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleFind, NoID: true},
	Run: func(ctx context.Context, c *Call, req *BrowseInput) (*CatalogOutput, error) {
		return catalog(ctx, c.Deps, req, false)
	},
}

var search = Spec[SearchInput, CatalogOutput]{
	Name:      "mindvault_search",
	Toolset:   config.ToolsetCatalog,
	Title:     "Search the catalog",
	Operation: "Search failed",
	Description: `Searches the MindVault catalog by keyword and/or filters (at least one criterion). Free.
		Returns count 0 with a message when nothing matches. Follow with mindvault_preview, then
		mindvault_buy.`,
	Kind:  lookup(errmap.SourceAPI),
	Guide: errmap.Guide{Role: errmap.RoleFind, NoID: true},
	Run: func(ctx context.Context, c *Call, req *SearchInput) (*CatalogOutput, error) {
		return catalog(ctx, c.Deps, (*BrowseInput)(req), true)
	},
}

// catalog sends the server-supported filters, then applies locally what the API cannot.
func catalog(ctx context.Context, d *Deps, req *BrowseInput, search bool) (*CatalogOutput, error) {
	q := mindvault.CatalogQuery{Limit: req.Limit, Offset: req.Offset, Search: deref(req.Query), MinPrice: deref(req.MinPrice), MaxPrice: deref(req.MaxPrice),
		ResourceType: deref(req.ResourceType), Owner: deref(req.Owner), Sort: deref(req.Sort)}
	if s := deref(req.VerificationStatus); s != "skipped" {
		q.VerificationStatus = s // skipped is filtered locally (keep)
	}
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

func keep(r mindvault.Resource, req *BrowseInput) bool {
	if q := deref(req.Query); q != "" && !strings.Contains(strings.ToLower(r.Title+" "+r.Description), strings.ToLower(q)) ||
		deref(req.VerificationStatus) == "skipped" && r.VerificationStatus != "skipped" {
		return false
	}
	if req.Listed != nil {
		listed := r.Listed == nil || *r.Listed // the public catalog only serves listed rows
		if listed != *req.Listed {
			return false
		}
	}
	for _, want := range req.Tags {
		if !slices.ContainsFunc(r.Tags, func(t string) bool { return strings.EqualFold(t, want) }) {
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
func emptyMessage(req *BrowseInput) string {
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
