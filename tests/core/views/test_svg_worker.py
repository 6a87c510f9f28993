"""core.views.svg_worker: vl-convert in one persistent worker process (issue 30)."""
import io
import json

import pytest

from core.views import svg_worker
from core.views.svg_worker import ChartCrash, render_svg, serve

SPEC = {"data": {"values": [{"m": "a", "v": 1}, {"m": "b", "v": 2}]}, "mark": "bar",
        "encoding": {"x": {"field": "m", "type": "nominal"},
                     "y": {"field": "v", "type": "quantitative"}}}


def _message(obj) -> bytes:
    body = json.dumps(obj).encode()
    return svg_worker._HEADER.pack(len(body)) + body


def test_serve_answers_each_spec_and_stops_at_end_of_input():
    """The protocol, in this process: two specs in, two replies out (an SVG, then the error
    text of a spec vl-convert refuses), then end of input ends the loop."""
    out = io.BytesIO()
    serve(io.BytesIO(_message(SPEC) + _message({"mark": {"type": 5}})), out)
    data = out.getvalue()
    replies = []
    while data:
        size = svg_worker._HEADER.unpack(data[:8])[0]
        replies.append(json.loads(data[8:8 + size]))
        data = data[8 + size:]
    assert len(replies) == 2
    assert "<svg" in replies[0]["svg"]
    assert set(replies[1]) == {"error"}


def test_a_crash_costs_one_chart_and_the_worker_restarts():
    assert "<svg" in render_svg(SPEC)
    started = svg_worker.workers_started()
    crash = {**SPEC, "data": {"values": [{"m": "a\x1bb", "v": 1}]}}  # vl-convert aborts on ESC
    with pytest.raises(ChartCrash, match="stopped"):
        render_svg(crash)
    assert svg_worker.workers_started() == started  # no new worker until the next chart
    assert "<svg" in render_svg(SPEC)
    assert svg_worker.workers_started() == started + 1


def test_a_refused_spec_is_a_chart_crash_and_keeps_the_worker():
    render_svg(SPEC)
    started = svg_worker.workers_started()
    with pytest.raises(ChartCrash, match="refused"):
        render_svg({"mark": {"type": 5}})
    assert "<svg" in render_svg(SPEC)
    assert svg_worker.workers_started() == started


def test_a_hung_renderer_is_stopped_after_the_timeout(monkeypatch):
    """A worker that does not answer within ``timeout`` is killed; the next chart starts a
    fresh one."""
    render_svg(SPEC)
    worker = svg_worker._WORKER
    proc = worker._proc
    proc.send_signal(19)  # SIGSTOP: the worker hangs
    with pytest.raises(ChartCrash, match="longer than 0.5 s"):
        render_svg(SPEC, timeout=0.5)
    assert proc.poll() is not None
    assert "<svg" in render_svg(SPEC)
