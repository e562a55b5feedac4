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
		if in.Index < 0 || in.Index >= len(set.ClientFactories) || in.Client == nil {
			return nil, fmt.Errorf("no client factory %d", in.Index)
		}
		s.svc.facts.Store(&in.Facts)
		f := set.ClientFactories[in.Index]
		create := f.Create
		if in.Multimodal && f.CreateMultimodal != nil {
			create = f.CreateMultimodal
		}
		codec, err := create(ctx, *in.Client)
		if err != nil {
			return wire.Created{Err: err.Error(), NotSupported: errors.Is(err, contrib.ErrNotSupported)}, nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.codecs == nil {
			s.codecs = map[uint64]contrib.Codec{}
		}
		s.nextCodec++
		s.codecs[s.nextCodec] = codec
		return wire.Created{Codec: s.nextCodec}, nil
	}
	var in wire.CodecCall
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	s.mu.Lock()
	codec := s.codecs[in.Codec]
	s.mu.Unlock()
	if codec == nil {
		return nil, fmt.Errorf("no codec %d", in.Codec)
	}
	if method == wire.MethodCodecEncode {
		return codec.Encode(ctx, in.Request)
	}
	return codec.Decode(ctx, in.Response)
}
