#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Host checks of the signature API probes (api_probes.py; check.py calls `check_api`).

    check_api.py WORK_DIR              the checks alone ("ok"/"FAIL" lines and the figures)
    check_api.py WORK_DIR --markdown   the figures as a markdown table (before/after notes)

The limits are the server's `[api]` defaults (docs/API.md, "Limits"): max_connections 256,
request_timeout 10 s, max_request_line 8192, max_header_bytes 16384, max_body_bytes 16384.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_probes import FLOOD, MAX_CONNECTIONS, MAX_PER_CLIENT, NOFILE, PHASES, REQUEST_TIMEOUT, STORM_SOURCE, audit  # noqa: E402

# Under 200 clients in this emulated guest (no KVM: every instruction is translated, and the
# load's own Python clients take most of a CPU), the figures are printed, and the checks hold
# only what this VM can tell apart from the old server (docs/BENCHMARKS.md, "The signature API under load"):
HEALTH_MAX_MS = 5000     # every /health answered, none slower (the old server: up to 5.0 s, or none)
LATENCY_SLACK_MS = 100   # the kiosk's input→flip p99 under load, above an idle API (the old server: +160 to +1080 ms)
RSS_GROWTH_KB = 4096     # what the malformed requests may leave in the kiosk's memory


def load(work, name):
    path = os.path.join(work, f"apiprobe-{name}.json")
    try:
        return json.load(open(path)), path
    except (OSError, ValueError):
        return None, path


def probe_figures(work, name, probe, check):
    """A probe's figures and their file; none left, or a probe cut short, is a failed check."""
    data, path = load(work, name)
    if not data:
        check(False, f"the {probe} probe left its figures", path)
    elif data.get("failed"):
        check(False, f"the {probe} probe ran to its end ({data['failed']})", path)
    return data, path


def fmt_ms(v):
    return "—" if v is None else (f"{v:.0f} ms" if v >= 10 else f"{v:.1f} ms")


def answer(r):
    """A malformed request's outcome in words: "431 in 12 ms, closed"."""
    if not r:
        return "not run"
    if r.get("code") is not None:
        text = f"{r['code']} in {fmt_ms(r.get('answer_ms'))}" + (", closed" if r.get("closed_ms") is not None else ", left open")
    elif r.get("closed_ms") is not None:
        text = f"no answer, {r.get('error') or 'closed'} after {fmt_ms(r['closed_ms'])}"
    else:
        text = f"no answer in {r.get('timeout_s', '?')} s ({r.get('error')})"
    if r.get("size", 0) > 65536:
        text += f" ({r.get('sent', 0) * 100 // max(r['size'], 1)} % sent)"
    return text


def leftovers(m):
    """What the malformed requests left in the kiosk: (RSS growth in kB, connections still
    open after this side closed them, the probes that needed a fresh kiosk)."""
    grew, left, fresh = 0, 0, []
    steps = [(m.get("before"), m.get("small_after"))]
    for key in ("header_line_1mb", "path_1mb", "headers_1mb"):
        r = m.get(key) or {}
        steps.append((r.get("before"), r.get("after")))
        if r.get("fresh_kiosk"):
            fresh.append(key)
    for a, b in steps:
        if a and b and a.get("rss_kb") is not None and b.get("rss_kb") is not None:
            grew += b["rss_kb"] - a["rss_kb"]
            left += max(0, (b.get("fds") or 0) - (a.get("fds") or 0))
    return grew, left, fresh


def errors_in_words(c):
    """The load's errors by kind: "reset 3, still waiting after 1 s when the load ended 12"."""
    kinds = [f"{k} {n}" for k, n in (c.get("errors") or {}).items() if n]
    if c.get("unfinished_over_1s"):
        kinds.append(f"still waiting after 1 s when the load ended {c['unfinished_over_1s']}")
    bad = {code: n for code, n in (c.get("codes") or {}).items() if not code.startswith(("2", "4")) or code == "408"}
    if bad:
        kinds.append(f"answers {bad}")
    return ", ".join(kinds) or "none"


def latency(work, label):
    path = os.path.join(work, f"apiprobe-{label}-latency.json")
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def figures(work):
    """(probe, figure) pairs, in the order of the issue: what to compare before and after."""
    rows = []
    run, _ = load(work, "run")
    if run:
        rows.append(("probes", f"{', '.join(f'{k} {v}' for k, v in run.get('phases', {}).items())}; {run.get('seconds')} s in all"))
    f, _ = load(work, "flood")
    if f:
        outs = f.get("outcomes", {})
        rows.append((f"{FLOOD} idle connections (fd limit {NOFILE})",
                     "; ".join(f"{what} ×{o['n']}" + (f" (median at {o['p50_s']} s)" if o.get("p50_s") is not None else "")
                               for what, o in sorted(outs.items(), key=lambda kv: -kv[1]["n"]))
                     + f"; kiosk fds peak {f.get('fds_peak')} (before {f.get('fds_before')})"
                     + f"; alive {f.get('alive')}"))
        rows.append(("/health with the flood held open",
                     f"200 after {f['health_with_flood_s']} s" if f.get("health_with_flood_s") is not None
                     else f"no 200 within {REQUEST_TIMEOUT + 5} s ({len(f.get('health_with_flood_attempts', []))} attempts: "
                          + ", ".join(sorted({str(a.get('code') or a.get('error')) for a in f.get('health_with_flood_attempts', [])})) + ")"))
        rows.append(("/health after the flood closed",
                     f"200 after {f['health_after_close_s']} s" if f.get("health_after_close_s") is not None else "no 200 within 10 s"))
        post = f.get("post_after") or {}
        rows.append(("POST /signatures after the flood", f"{post.get('code') or post.get('error')}"))
        if f.get("log_emfile_lines"):
            rows.append(("kiosk log: EMFILE", f"{f['log_emfile_lines']} lines, first: {f.get('log_emfile_first')}"))
    m, _ = load(work, "malformed")
    if m:
        for key, label in (("header_line_1mb", "1 MB header line"), ("path_1mb", "1 MB path"),
                           ("headers_1mb", "1 MB of headers (16 384 lines)"), ("content_length_negative", "Content-Length: -5"),
                           ("path_invalid_utf8", "invalid UTF-8 in the path"), ("garbage", "garbage"),
                           ("content_length_10mb", "Content-Length: 10000000, head only")):
            rows.append((label, answer(m.get(key))))
        st = m.get("stall") or {}
        ended = st.get("answer_ms") if st.get("code") is not None else st.get("closed_ms")
        rows.append(("half a request line, then nothing",
                     (f"{st.get('code') or 'closed'} after {ended / 1000:.1f} s" if ended is not None
                      else f"still open after {REQUEST_TIMEOUT + 8} s")))
        grew, left, fresh = leftovers(m)
        rows.append(("what they left in the kiosk", f"RSS {grew / 1024:+.1f} MB, {left} connections"
                     + (f"; a fresh kiosk before {', '.join(fresh)} (the one before no longer answered /health)" if fresh else "")))
    ld, _ = load(work, "load")
    if ld:
        p = ld.get("prober") or {}
        c = ld.get("clients") or {}
        if p:
            rows.append(("/health every 75 ms under 200 clients",
                         f"p50 {fmt_ms(p['ms']['p50'])}, p99 {fmt_ms(p['ms']['p99'])}, max {fmt_ms(p['ms']['max'])}; "
                         f"{p.get('within_1s')} of {p.get('samples')} within 1 s, {p.get('within_100ms')} within 100 ms; "
                         f"{p.get('errors')} errors"))
        if c:
            rows.append(("all requests of 200 keep-alive clients",
                         f"{c.get('requests')} in {c.get('seconds')} s ({c.get('per_second')}/s), p50 {fmt_ms(c['ms']['p50'])}, "
                         f"p99 {fmt_ms(c['ms']['p99'])}, max {fmt_ms(c['ms']['max'])}; codes {c.get('codes')}; "
                         f"errors {c.get('errors_total')} ({errors_in_words(c)})"))
        idle, busy = latency(work, "idle"), latency(work, "load")
        if idle and busy:
            a, b = idle["inputToFlipMs"], busy["inputToFlipMs"]
            rows.append(("kiosk input→flip, API idle / under load",
                         f"p50 {a['median']:.1f} / {b['median']:.1f} ms, p99 {a['p99']:.1f} / {b['p99']:.1f} ms "
                         f"({idle['frames']} / {busy['frames']} frames)"))
        di, dl = ld.get("idle_draw") or {}, ld.get("load_draw") or {}
        if di and dl:
            rows.append(("CPU while the pen draws (2 vCPUs)",
                         f"kiosk {di.get('kiosk_cpu_s')} s in {di.get('s')} s idle, {dl.get('kiosk_cpu_s')} s in {dl.get('s')} s "
                         f"under load; the load's clients {c.get('cpu_s')} s, the prober {p.get('cpu_s')} s in {c.get('seconds')} s"))
    a, _ = load(work, "access")
    if a:
        rows += access_figures(a)
    k, _ = load(work, "kill")
    if k:
        parts = []
        for r in k.get("rounds", []):
            g = r.get("get") or {}
            parts.append(f"{r.get('moment')}: {r.get('skipped') or (str(g.get('code')) + ' ' + str(g.get('state')))}")
        rows.append(("kill -9 during Accept, then GET /signatures/{id}", "; ".join(parts)))
        left = sorted({x for r in k.get("rounds", []) for x in (r.get("audit") or {}).get("leftovers", [])})
        modes = sorted({tuple(x) for r in k.get("rounds", []) for x in (r.get("audit") or {}).get("bad_modes", [])})
        rows.append(("outbox after the restarts", f"leftovers {left or 'none'}; modes off {[list(x) for x in modes] or 'none'}"))
        rows.append(("DELETE of the accepted ones", ", ".join(f"{a['delete']}{' files gone' if a['gone'] else ' files left'}"
                                                            for a in k.get("acks", [])) or "none accepted"))
    return rows


def check_api(work, check):
    run, path = load(work, "run")
    if not run:
        check(False, "the API probes ran (their summary is missing)", path)
    selected = (run or {}).get("selected", list(PHASES))
    if "load" in selected:
        check_load(work, check)
    if "malformed" in selected:
        check_malformed(work, check)
    if "flood" in selected:
        check_flood(work, check)
    if "kill" in selected:
        check_kill(work, check)
    if "access" in selected:
        check_access(work, check)
    if "lockout" in selected:
        check_lockout(work, check)


def check_lockout(work, check):
    # --- f. the host signs a contract while everything else on 127.0.0.1 tries to lock it out ----
    lo, path = probe_figures(work, "lockout", "lockout", check)
    if not lo:
        return
    host = lo.get("host") or {}
    asked = host.get("requests") or []
    health = host.get("health") or []
    bad = [r for r in asked + health if not (r.get("code") and 200 <= r["code"] < 300)]
    check(len(asked) == 5 and health and not bad,
          f"every one of the host's requests succeeded: {[(r['name'], r['code'] or r['error']) for r in asked]}, "
          f"/health {len(health)} times; failed: {[(r.get('name', '/health'), r.get('code') or r.get('error')) for r in bad][:8]}", path)
    check(lo.get("state") == "accepted" and lo.get("signed_pdf_is_update") is True,
          f"the contract was signed end to end: {lo.get('state')}, the signed PDF ({lo.get('signed_pdf_bytes')} bytes) is the "
          f"contract with an update appended: {lo.get('signed_pdf_is_update')}", path)
    st = lo.get("storm") or {}
    fetch, plain, wrong, busy, idle = (st.get(k) or {} for k in ("browser_fetch", "browser_plain", "wrong_token", "busy", "idle"))

    def only(codes, allowed):
        # A storm's connection may also be closed to make room (closed, reset): never a 503 or a 200.
        return sum(codes.values()) > 0 and set(codes) <= set(allowed) | {"closed", "ConnectionResetError"}
    check(only(fetch, {"403"}) and fetch.get("403", 0) > 0 and only(plain, {"401"}) and plain.get("401", 0) > 0,
          f"a browser's image requests every 100 ms: with Sec-Fetch-* {fetch}, without {plain} (403 and 401: no token was "
          f"counted against the host)", path)
    check(only(wrong, {"401", "429"}) and wrong.get("429", 0) > 0,
          f"a program sending wrong tokens from 127.0.0.1: {wrong} (then 429 for its wrong tokens, none for the host)", path)
    check(only(busy, {"401"}) and busy.get("401", 0) > 0,
          f"{200} busy clients without a token: {busy}", path)
    check(idle.get("opened", 0) >= 64 and idle.get("closed_by_server", 0) > 0,
          f"64 idle connections from 127.0.0.1, reopened when closed: {idle} (closed to make room for the host)", path)
    check(lo.get("alive") is True and lo.get("log_room_lines") and (lo.get("log_refused_lines") or 0) <= 200,
          f"the kiosk lives; its log says it made room ({(lo.get('log_room_lines') or ['nothing'])[0][:160]}) and stays quiet: "
          f"{lo.get('log_refused_lines')} lines on refusals for {sum(sum(c.values()) for c in (fetch, plain, wrong, busy))} refused "
          f"requests", path)
    ms = lo.get("host_ms") or {}
    print(f"figure: the host's requests under the storm (signing a contract, {lo.get('host_s')} s): {ms.get('n')} answered, "
          f"p50 {fmt_ms(ms.get('p50'))}, p99 {fmt_ms(ms.get('p99'))}, max {fmt_ms(ms.get('max'))}; the storm in "
          f"{st.get('seconds')} s: browser {fetch} / {plain}, wrong tokens {wrong}, busy {busy}, idle {idle}", flush=True)


def access_figures(a):
    """The access probe's figures: what each refused request got, the storm, the real client."""
    rows = []
    rows.append(("DNS rebinding (Host: evil.example)", f"GET {a.get('rebinding_get', {}).get('code')}, "
                 f"POST {a.get('rebinding_post', {}).get('code')}"))
    rows.append(("web page's text/plain POST with Origin, no token", f"{(a.get('page_post') or {}).get('code')}"))
    rows.append(("text/plain POST with the token; form POST", f"{(a.get('plain_post') or {}).get('code')}; "
                 f"{(a.get('form_post') or {}).get('code')}"))
    h = a.get("health_after") or {}
    rows.append(("after them: /health, /signatures/latest", f"{h.get('code')} waiting {h.get('waiting')}, {a.get('latest_after')}"
                 f" (frames unchanged: {a.get('frames_unchanged')})"))
    st = a.get("storm") or {}
    rows.append((f"wrong-token storm from {STORM_SOURCE}", f"{st.get('n')} requests in {st.get('seconds')} s: {st.get('codes')}; "
                 f"the right token from there while held off: {a.get('storm_right_token')}"))
    for key, label in (("real_idle", "real client alone"), ("real_storm", "real client during the storm")):
        r = a.get(key) or {}
        m = r.get("ms") or {}
        rows.append((label, f"{r.get('codes')}, p50 {fmt_ms(m.get('p50'))}, p99 {fmt_ms(m.get('p99'))}, max {fmt_ms(m.get('max'))}"))
    return rows


def check_access(work, check):
    # --- e. who may ask ------------------------------------------------------------------------
    a, path = probe_figures(work, "access", "access", check)
    if not a:
        return
    rg, rp = (a.get("rebinding_get") or {}).get("code"), (a.get("rebinding_post") or {}).get("code")
    check(rg == 421 and rp == 421, f"DNS rebinding (Host: evil.example): GET {rg}, POST {rp} (421 expected)", path)
    pp, tp, fp = ((a.get(k) or {}).get("code") for k in ("page_post", "plain_post", "form_post"))
    check(pp in (403, 415), f"a web page's text/plain POST with its Origin: {pp} (403 or 415 expected)", path)
    check(tp == 415 and fp == 415, f"text/plain and form bodies with the right token: {tp}, {fp} (415 expected)", path)
    h = a.get("health_after") or {}
    check(h.get("code") == 200 and h.get("waiting") is None and a.get("latest_after") == 404,
          f"no prompt appeared: /health {h.get('code')} waiting {h.get('waiting')}, /signatures/latest {a.get('latest_after')} "
          f"(frames unchanged: {a.get('frames_unchanged')})", path)
    st = a.get("storm") or {}
    codes = st.get("codes") or {}
    seconds = st.get("seconds") or 0
    check(codes.get("429", 0) > 0 and codes.get("401", 0) <= 5 * (int(seconds // 10) + 2) and a.get("storm_right_token") == 200,
          f"the wrong-token storm from {STORM_SOURCE}: {st.get('n')} requests in {seconds} s: {codes} "
          f"(at most 5 wrong tokens a 10 s are looked at, then 429; the right token from that client: "
          f"{a.get('storm_right_token')}, 200 expected)", path)
    for key in ("real_idle", "real_storm"):
        r = a.get(key) or {}
        c = r.get("codes") or {}
        check(set(c) == {"200"} and c["200"] > 0, f"the real client ({key}): {c}, p99 {fmt_ms((r.get('ms') or {}).get('p99'))}", path)
    ri, rs = (a.get("real_idle") or {}).get("ms") or {}, (a.get("real_storm") or {}).get("ms") or {}
    print(f"figure: the real client's /health alone p50 {fmt_ms(ri.get('p50'))} p99 {fmt_ms(ri.get('p99'))}, "
          f"during the storm p50 {fmt_ms(rs.get('p50'))} p99 {fmt_ms(rs.get('p99'))}", flush=True)
    check(a.get("alive") is True and any("refused 421" in line for line in a.get("log_lines", []))
          and any(STORM_SOURCE in line and "429" in line for line in a.get("log_lines", [])),
          "the kiosk lives, and its log says what was refused and from where: "
          + " | ".join(a.get("log_lines", [])[:4]), path)


def check_load(work, check):
    # --- c. load: /health and the ink under 200 clients ---------------------------------------
    ld, path = probe_figures(work, "load", "API load", check)
    if ld:
        p, c = ld.get("prober") or {}, ld.get("clients") or {}
        ms = p.get("ms") or {}
        worst = ms.get("max")
        check(worst is not None and worst <= HEALTH_MAX_MS and p.get("errors") == 0 and p.get("samples", 0) >= 5,
              f"/health under {c.get('clients', 200)} clients: every one answered, the slowest in {fmt_ms(worst)} "
              f"(≤{HEALTH_MAX_MS}) over {p.get('samples')} samples on fresh connections, {p.get('errors')} errors", path)
        print(f"figure: /health under {c.get('clients', 200)} clients in the VM: p50 {fmt_ms(ms.get('p50'))}, "
              f"p99 {fmt_ms(ms.get('p99'))} (the target on a board: 100 ms)", flush=True)
        check(c.get("requests", 0) > 0 and c.get("errors_total") == 0 and c.get("connections", 0) >= c.get("clients", 1),
              f"{c.get('clients')} keep-alive clients: {c.get('requests')} answers, p99 {fmt_ms((c.get('ms') or {}).get('p99'))}, "
              f"errors {c.get('errors_total')} ({errors_in_words(c)}), codes {c.get('codes')}", path)
        check(ld.get("load_alive") is True and ld.get("load_after") == 200,
              f"the kiosk came through the load and its capture is still there (GET {ld.get('load_after')})", path)
        idle, busy = latency(work, "idle"), latency(work, "load")
        if not (idle and busy):
            check(False, "the kiosk's input→flip figures of both runs (API idle, under load)",
                  os.path.join(work, "apiprobe-load-latency.json"))
        else:
            a, b = idle["inputToFlipMs"]["p99"], busy["inputToFlipMs"]["p99"]
            check(b <= a + LATENCY_SLACK_MS,
                  f"the ink does not wait for the API: input→flip p99 {b:.1f} ms under load, {a:.1f} ms with the API idle "
                  f"({b - a:+.1f} ms, at most +{LATENCY_SLACK_MS} ms; {(b / a - 1) * 100 if a else 0:+.0f} %; "
                  f"{busy['frames']} / {idle['frames']} frames)", os.path.join(work, "apiprobe-load-latency.json"))



def check_malformed(work, check):
    # --- b. malformed and oversized requests ----------------------------------------------------
    m, path = probe_figures(work, "malformed", "malformed-request", check)
    if m:
        for key, label, want in (("header_line_1mb", "a 1 MB header line", 431), ("path_1mb", "a 1 MB path", 414),
                                 ("headers_1mb", "1 MB of headers in many lines", 431),
                                 ("content_length_negative", "Content-Length: -5", 400),
                                 ("path_invalid_utf8", "invalid UTF-8 in the path", 400), ("garbage", "garbage", 400),
                                 ("content_length_10mb", "Content-Length: 10000000 with only the head sent", 413)):
            r = m.get(key) or {}
            fast = r.get("answer_ms") is not None and r["answer_ms"] <= 5000
            check(r.get("code") == want and fast and r.get("closed_ms") is not None,
                  f"{label}: {want} and closed, within 5 s ({answer(r)})", path)
        st = m.get("stall") or {}
        ended = st.get("answer_ms") if st.get("code") is not None else st.get("closed_ms")
        check(ended is not None and (REQUEST_TIMEOUT - 1) * 1000 <= ended <= (REQUEST_TIMEOUT + 5) * 1000
              and st.get("code") in (None, 408),
              f"half a request line, then nothing: closed after request_timeout ({REQUEST_TIMEOUT} s): "
              + (f"{st.get('code') or 'closed'} after {ended / 1000:.1f} s" if ended is not None else "still open"), path)
        grew, left, fresh = leftovers(m)
        check(m.get("alive") is True and (m.get("health_after") or {}).get("code") == 200 and not fresh
              and left == 0 and grew <= RSS_GROWTH_KB and m.get("small_after"),
              f"after them the kiosk answers /health ({(m.get('health_after') or {}).get('code')}), keeps no connection "
              f"({left} left), no memory (RSS {grew / 1024:+.1f} MB, at most {RSS_GROWTH_KB / 1024:.0f}) and never stops "
              f"answering ({'a fresh kiosk was needed before ' + ', '.join(fresh) if fresh else 'it answered before each'})", path)



def check_flood(work, check):
    # --- a. an idle flood past the fd limit --------------------------------------------------------
    f, path = probe_figures(work, "flood", "flood", check)
    if f:
        outs = f.get("outcomes", {})
        closed = sum((outs.get(w) or {}).get("n", 0) for w in ("closed", "reset"))
        n503 = (outs.get("HTTP 503") or {}).get("n", 0)
        over = FLOOD - min(MAX_CONNECTIONS, MAX_PER_CLIENT)
        check(f.get("alive_with_flood") is True and f.get("alive") is True,
              f"{FLOOD} idle connections with {NOFILE} open files allowed: the kiosk lives", path)
        check(closed >= over - 32 and n503 == 0,
              f"the connections over max_connections_per_client ({MAX_PER_CLIENT}; in all {MAX_CONNECTIONS}), none of which showed "
              f"the token, make room by closing older ones: {closed} of {over} closed without an answer (median at "
              f"{(outs.get('closed') or {}).get('p50_s')} s after the flood began), {n503} answered 503", path)
        check(f.get("held_open") == 0,
              f"the server ended every flood connection within request_timeout + 6 s ({f.get('held_open')} still open; "
              + ", ".join(f"{w} ×{o['n']}" for w, o in outs.items()) + ")", path)
        peak, before = f.get("fds_peak"), f.get("fds_before") or 0
        check(peak is not None and peak <= before + MAX_CONNECTIONS + 32,
              f"the kiosk's open files at the peak: {peak} (before {before}; at most {before} + {MAX_CONNECTIONS} + 32, "
              f"the limit is {NOFILE})", path)
        check(f.get("health_with_flood_s") is not None and f["health_with_flood_s"] <= 3,
              f"/health from the flood's own address (127.0.0.1), with the token, answers 200 with the flood held open, after "
              f"{f.get('health_with_flood_s')} s (within 3 s: a connection that has not shown the token gives way to it)", path)
        post = f.get("post_after") or {}
        check(f.get("health_after_close_s") is not None and post.get("code") == 201,
              f"after the flood: /health 200 after {f.get('health_after_close_s')} s, POST /signatures {post.get('code') or post.get('error')}",
              path)



def check_kill(work, check):
    # --- d. kill -9 during Accept, then a restart -------------------------------------------------
    k, path = probe_figures(work, "kill", "kill-during-Accept", check)
    if not k:
        return
    rounds = [r for r in k.get("rounds", []) if not r.get("skipped")]
    check(len(rounds) >= 4, f"kill -9 during Accept at {len(rounds)} moments ("
          + ", ".join(f"{r.get('moment')}: {r.get('reached')} {fmt_ms(r.get('after_tap_ms'))} after the tap" for r in rounds) + ")", path)
    for r in rounds:
        g, a = r.get("get") or {}, r.get("audit") or {}
        final = g.get("code") == 200 and g.get("state") not in (None, "waiting")
        captured = r.get("final_dir_at_kill")
        consistent = (g.get("state") == "accepted") == bool(captured)
        files = (a.get("captures") or {}).get(r.get("id"))
        # Sealed (modes.signature_keys): the PNG, SVG and InkML encrypted, the JSON plain.
        whole = g.get("state") != "accepted" or files == sorted([f"{r['id']}.{x}.hpke" for x in ("inkml", "png", "svg")] + [f"{r['id']}.json"])
        check(final and consistent and whole,
              f"killed at '{r.get('moment')}' ({r.get('reached')}): after the restart GET answers {g.get('code')} "
              f"{g.get('state')}" + (f" ({g.get('reason')})" if g.get("reason") else "")
              + f"; the capture's directory {'was' if captured else 'was not'} renamed into place"
              + (f"; its files {files}" if g.get("state") == "accepted" else ""), path)
        check(not a.get("leftovers") and not a.get("bad_modes") and a.get("outbox_mode") == "0o700",
              f"killed at '{r.get('moment')}': no leftovers after the restart ({a.get('leftovers') or 'none'}), "
              f"every directory 0700 and file 0600 ({a.get('bad_modes') or 'yes'})", path)
    acks = k.get("acks", [])
    check(bool(acks) and all(x["delete"] == 204 and x["gone"] and x["state"] == "accepted" and x["acknowledged"] for x in acks),
          "DELETE of each accepted capture: 204, its files gone, GET says accepted and acknowledged ("
          + ", ".join(f"{x['delete']}, {'gone' if x['gone'] else 'still there'}, {x['state']}" for x in acks) + ")", path)
    outbox = os.path.join(work, "apiprobe-kill", "outbox")
    now = audit(outbox)
    check(os.path.isdir(outbox) and not now["leftovers"] and not now["bad_modes"],
          f"the outbox seen from the host at the end: no leftovers ({now['leftovers'] or 'none'}), "
          f"modes {now['bad_modes'] or 'all 0700 / 0600'}", outbox)


def summary(work):
    print("api figures: " + " | ".join(f"{label}: {text}" for label, text in figures(work)), flush=True)


def markdown(work):
    print("| probe | figure |\n| --- | --- |")
    for label, text in figures(work):
        print(f"| {label} | {text.replace('|', '/')} |")


if __name__ == "__main__":
    work = sys.argv[1]
    if "--markdown" in sys.argv[2:]:
        markdown(work)
        sys.exit(0)
    results = []

    def check(ok, what, path=""):
        results.append(ok)
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f"   [{path}]"), flush=True)
    check_api(work, check)
    summary(work)
    print(f"api: {results.count(True)} passed, {results.count(False)} failed")
    sys.exit(1 if False in results else 0)
