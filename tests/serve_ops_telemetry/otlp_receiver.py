"""A minimal OTLP/HTTP trace receiver on the official OpenTelemetry protos: it listens on
127.0.0.1 (an ephemeral port, printed as `PORT n`), decodes each POST /v1/traces body as
an ExportTraceServiceRequest (application/x-protobuf) and prints one JSON line per span:
{"service", "trace_id", "span_id", "parent_span_id", "name", "kind", "start", "end",
"attributes", "status"} (`start`, `end`: the span's Unix times in nanoseconds). Ids are lowercase hex, `kind` is the proto enum's name."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


def value(v):
    kind = v.WhichOneof("value")
    return getattr(v, kind) if kind else None


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces":
            self.send_response(404)
            self.end_headers()
            return
        req = trace_service_pb2.ExportTraceServiceRequest()
        req.ParseFromString(body)
        for rs in req.resource_spans:
            res = {a.key: value(a.value) for a in rs.resource.attributes}
            for ss in rs.scope_spans:
                for s in ss.spans:
                    print(json.dumps({
                        "service": res.get("service.name"),
                        "content_type": self.headers.get("Content-Type"),
                        "trace_id": s.trace_id.hex(),
                        "span_id": s.span_id.hex(),
                        "parent_span_id": s.parent_span_id.hex(),
                        "name": s.name,
                        "kind": trace_pb2.Span.SpanKind.Name(s.kind),
                        "start": s.start_time_unix_nano,
                        "end": s.end_time_unix_nano,
                        "attributes": {a.key: value(a.value) for a in s.attributes},
                        "status": trace_pb2.Status.StatusCode.Name(s.status.code),
                    }), flush=True)
        out = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"PORT {server.server_address[1]}", flush=True)
server.serve_forever()
