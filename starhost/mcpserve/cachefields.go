package mcpserve

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cachingVersion is the first protocol version whose list and read results
// carry the cache hints ttlMs and cacheScope.
const cachingVersion = "2026-07-28"

// cacheFieldsMiddleware keeps the cache hints ttlMs and cacheScope out of
// the results of a request on a protocol version before 2026-07-28, whose
// schema has no such fields: the SDK (v1.8.0) writes them on every list
// and resources/read result, whatever the version, because its Cacheable
// fields are not omitempty. On 2026-07-28 they are required and stay.
func (s *Server) cacheFieldsMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if _, cacheable := res.(mcp.CacheableResult); err != nil || !cacheable || !beforeCaching(req) {
			return res, err
		}
		return withoutCacheFields(res)
	}
}

// beforeCaching reports whether req was made on a protocol version older
// than 2026-07-28 (versions are dates, so they order as strings). A request
// of unknown version is answered as an old one.
func beforeCaching(req mcp.Request) bool {
	v, ok := req.(interface{ ProtocolVersion() string })
	return !ok || v.ProtocolVersion() < cachingVersion
}

// plainResult is a result already encoded: the SDK marshals it as is.
type plainResult struct {
	mcp.ResultBase
	raw json.RawMessage
}

// MarshalJSON returns the encoded result.
func (r *plainResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// withoutCacheFields re-encodes res without ttlMs and cacheScope.
func withoutCacheFields(res mcp.Result) (mcp.Result, error) {
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	delete(fields, "ttlMs")
	delete(fields, "cacheScope")
	if data, err = json.Marshal(fields); err != nil {
		return nil, err
	}
	return &plainResult{raw: data}, nil
}
