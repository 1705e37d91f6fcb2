"""An OTLP/HTTP trace receiver on 127.0.0.1 for ServeTracingTests: decodes each export (protobuf,
with opentelemetry-proto's classes) and appends one JSON line per span to SPANS; writes the port
it listens on to PORT once it listens. Answers 200 with an empty export response, as a collector
does. Usage: otlp_receiver.py PORT_FILE SPANS_FILE"""
import http.server
import json
import os
import sys

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

port_file, spans_file = sys.argv[1], sys.argv[2]


def value(any_value):
    kind = any_value.WhichOneof("value")
    return str(getattr(any_value, kind)) if kind else ""


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        export = ExportTraceServiceRequest.FromString(body)
        lines = []
        for resource_spans in export.resource_spans:
            resource = {a.key: value(a.value) for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    lines.append(json.dumps({
                        "path": self.path,
                        "contentType": self.headers.get("Content-Type", ""),
                        "service": resource.get("service.name", ""),
                        "name": span.name,
                        "kind": span.kind,
                        "traceID": span.trace_id.hex(),
                        "spanID": span.span_id.hex(),
                        "parentSpanID": span.parent_span_id.hex(),
                        "attributes": {a.key: value(a.value) for a in span.attributes},
                    }))
        with open(spans_file, "a") as spans:
            spans.write("".join(line + "\n" for line in lines))
        reply = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
with open(port_file + ".part", "w") as port:
    port.write(str(server.server_address[1]))
os.rename(port_file + ".part", port_file)
server.serve_forever()
