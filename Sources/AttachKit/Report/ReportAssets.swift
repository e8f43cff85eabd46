/// The batch report's style sheet and script, inline in every report: a report loads nothing
/// (its Content-Security-Policy forbids every network load; pictures are `data:` URIs).
enum ReportAssets {
    /// What the page may load: nothing but its own inline style and script, and `data:` pictures.
    static let contentSecurityPolicy =
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

    static let style = """
        :root { color-scheme: light; --ok: #1a7f37; --bad: #c62828; --line: #d8dce2; --muted: #5f6670; }
        body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px; color: #1d2127; background: #fff; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 17px; margin: 24px 0 8px; }
        .sub { color: var(--muted); margin: 0 0 16px; word-break: break-all; }
        .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 0 0 12px; }
        .card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 110px; }
        .card .n { font-size: 22px; font-weight: 600; display: block; }
        .card .l { color: var(--muted); font-size: 12px; }
        .card.ok .n { color: var(--ok); } .card.bad .n { color: var(--bad); }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 3px 14px; margin: 0; }
        dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-word; }
        code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; background: #f3f4f6; padding: 1px 4px; border-radius: 4px; }
        .controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
        .controls button, .controls select { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px; background: #f7f8fa; cursor: pointer; }
        .controls button[aria-pressed="true"] { background: #1d2127; color: #fff; border-color: #1d2127; }
        .pager { margin-left: auto; display: flex; gap: 6px; align-items: center; }
        table { border-collapse: collapse; width: 100%; }
        th { text-align: left; font-size: 12px; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--line); padding: 6px; }
        td { border-bottom: 1px solid var(--line); padding: 8px 6px; vertical-align: top; }
        .badge { display: inline-block; font-size: 12px; font-weight: 600; padding: 1px 8px; border-radius: 10px; color: #fff; }
        .badge.prepared { background: var(--ok); } .badge.refused { background: var(--bad); }
        .action { color: var(--muted); font-size: 12px; margin-top: 4px; }
        .name { font-weight: 600; word-break: break-all; max-width: 260px; }
        .meta { color: var(--muted); font-size: 12px; }
        .saving { font-size: 12px; font-weight: 600; color: var(--ok); } .saving.grew { color: #8a5a00; }
        td.pic { width: 84px; text-align: center; }
        img.thumb { display: block; margin: 0 auto; border-radius: 3px; box-shadow: 0 0 0 1px var(--line); background: #fafafa; }
        .mark { width: 80px; min-height: 40px; display: flex; align-items: center; justify-content: center; font-size: 11px;
                color: var(--muted); border: 1px dashed var(--line); border-radius: 4px; padding: 4px; box-sizing: border-box; }
        .mark.sound { font-size: 28px; color: #6b4fbb; border-style: solid; height: 60px; }
        ul.notes { margin: 0; padding-left: 16px; font-size: 12px; } ul.notes li { word-break: break-word; }
        .code { font-weight: 600; color: var(--bad); font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
        .fix { font-size: 12px; margin: 4px 0 0; } .fix b { color: var(--ok); }
        .mock { width: 250px; display: flex; gap: 8px; align-items: center; padding: 8px 10px; border-radius: 14px;
                background: #e9e9ee; font-family: -apple-system, system-ui, sans-serif; box-shadow: 0 1px 2px rgba(0,0,0,.15); }
        .mock-icon { width: 24px; height: 24px; border-radius: 6px; background: linear-gradient(135deg, #5ac8fa, #007aff); flex: none; }
        .mock-body { flex: 1; min-width: 0; font-size: 12px; }
        .mock-head { display: flex; justify-content: space-between; color: #6e6e73; font-size: 10px; }
        .mock-title { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .mock-text { color: #3a3a3c; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .mock-thumb { width: 40px; height: 40px; border-radius: 6px; overflow: hidden; position: relative; flex: none; background: #d1d1d6; }
        .mock-clip { position: absolute; overflow: hidden; }
        .mock-clip img { position: absolute; max-width: none; }
        .mock-note { font-size: 11px; color: var(--muted); margin-top: 4px; max-width: 250px; }
        footer { margin-top: 20px; color: var(--muted); font-size: 12px; }
        """

    /// Collects the rows of every `<template class="page">` (inert: their pictures are not decoded
    /// until shown), then shows one page of the rows the filter keeps, in the order chosen. Only
    /// `textContent` and `dataset` are read or written: no row text is ever parsed as HTML.
    static let script = """
        (function () {
          "use strict";
          var rows = [];
          document.querySelectorAll("template.page").forEach(function (t) {
            Array.prototype.forEach.call(t.content.children, function (r) { rows.push(r); });
          });
          var body = document.getElementById("rows"), per = 100, page = 0, filter = "all", order = "name", shown = rows;
          var number = function (r, k) { var v = r.dataset[k]; return v === undefined || v === "" ? -1 : Number(v); };
          var orders = {
            name: function (a, b) { return a.dataset.name < b.dataset.name ? -1 : a.dataset.name > b.dataset.name ? 1 : 0; },
            outcome: function (a, b) { return (a.dataset.outcome === "refused" ? 0 : 1) - (b.dataset.outcome === "refused" ? 0 : 1) || orders.name(a, b); },
            before: function (a, b) { return number(b, "before") - number(a, "before") || orders.name(a, b); },
            after: function (a, b) { return number(b, "after") - number(a, "after") || orders.name(a, b); },
            saving: function (a, b) { return number(b, "saving") - number(a, "saving") || orders.name(a, b); }
          };
          function draw() {
            var pages = Math.max(1, Math.ceil(shown.length / per));
            page = Math.min(Math.max(0, page), pages - 1);
            var slice = shown.slice(page * per, page * per + per).map(function (r) {
              var row = document.importNode(r, true), after = row.querySelector("img.after");
              row.querySelectorAll("img.mock-picture").forEach(function (m) { if (after) { m.src = after.src; } });
              return row;
            });
            body.replaceChildren.apply(body, slice);
            document.getElementById("page").textContent = "page " + (page + 1) + " of " + pages + " (" + shown.length + " inputs)";
            document.getElementById("previous").disabled = page === 0;
            document.getElementById("next").disabled = page >= pages - 1;
          }
          function apply() {
            shown = rows.filter(function (r) { return filter === "all" || r.dataset.outcome === filter; }).sort(orders[order]);
            page = 0;
            draw();
          }
          document.querySelectorAll("button[data-filter]").forEach(function (b) {
            b.addEventListener("click", function () {
              filter = b.dataset.filter;
              document.querySelectorAll("button[data-filter]").forEach(function (o) { o.setAttribute("aria-pressed", String(o === b)); });
              apply();
            });
          });
          document.getElementById("order").addEventListener("change", function (e) { order = e.target.value; apply(); });
          document.getElementById("previous").addEventListener("click", function () { page -= 1; draw(); });
          document.getElementById("next").addEventListener("click", function () { page += 1; draw(); });
          document.getElementById("controls").hidden = false;
          apply();
        })();
        """
}
