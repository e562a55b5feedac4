package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/crystal-star/crystal-star/contrib"
	"github.com/crystal-star/crystal-star/contrib/wire"
)

// Client factories (CC8, CC9) cross the other way: the host builds model
// clients and performs the HTTP calls; the worker's codecs, which do no
// I/O, encode and decode. A codec stays in the worker as a handle.

func (s *server) serveFactory(ctx context.Context, method string, body []byte) (any, error) {
	_, set := s.current()
	if set == nil {
		return nil, errors.New("call before activate")
	}
	if method == wire.MethodFactoryCreate {
		var in wire.Invoke
		if err := json.Unmarshal(body, &in); err != nil {
			return nil, err
		}
		f, err := at(set.ClientFactories, in.Index, "client factory")
		if err != nil || in.Client == nil {
			return nil, fmt.Errorf("no client factory %d", in.Index)
		}
		s.svc.facts.Store(&in.Facts)
		ctx = s.svc.serving(ctx, in.Facts)
		create := f.Create
		if in.Multimodal && f.CreateMultimodal != nil {
			create = f.CreateMultimodal
		}
		codec, err := create(ctx, *in.Client)
		if err != nil {
			return wire.Created{Err: err.Error(), NotSupported: errors.Is(err, contrib.ErrNotSupported)}, nil
		}
		return wire.Created{Codec: s.codecs.add(codec)}, nil
	}
	var in wire.CodecCall
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	codec, ok := s.codecs.get(in.Codec)
	if !ok {
		return nil, fmt.Errorf("no codec %d", in.Codec)
	}
	if method == wire.MethodCodecEncode {
		return codec.Encode(ctx, in.Request)
	}
	return codec.Decode(ctx, in.Response)
}
