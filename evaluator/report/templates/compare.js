/* The comparison's per-problem table: both runs' pass@1 per problem, filters, sorting, and
 * each problem's samples in both runs (which changed verdict; each one's message), linked to
 * each run's report. */
"use strict";

(function () {
  var data = JSON.parse(document.getElementById("compare-data").textContent);
  var V = data.verdicts, S = data.strings;
  var rows = data.problems.map(function (p) {
    var a = p[3] / p[4], b = p[5] / p[6];
    var outcome = p[3] && p[5] ? "both" : p[3] ? "a" : p[5] ? "b" : "neither";
    return { id: p[0], difficulty: p[1], platform: p[2], aPassed: p[3], aSamples: p[4],
      bPassed: p[5], bSamples: p[6], a: a, b: b, diff: b - a, outcome: outcome,
      aVerdicts: p[7], bVerdicts: p[8], aMessages: p[9], bMessages: p[10] };
  });
  var outcomeNames = { both: "both solve", a: "A only", b: "B only", neither: "neither" };

  function signed(value) {
    var text = (100 * value).toFixed(1);
    return (value > 0 ? "+" : "") + text + " pp";
  }

  var columns = problemColumns().concat([
    { sort: function (r) { return r.a; }, cell: function (r, td) {
      textCell(td, percent(r.a) + " (" + r.aPassed + "/" + r.aSamples + ")", "num c-a"); } },
    { sort: function (r) { return r.b; }, cell: function (r, td) {
      textCell(td, percent(r.b) + " (" + r.bPassed + "/" + r.bSamples + ")", "num c-b"); } },
    { sort: function (r) { return r.diff; }, cell: function (r, td) {
      textCell(td, signed(r.diff), "num c-diff " + (r.diff > 0 ? "pos" : r.diff < 0 ? "neg" : ""));
    } },
    { sort: function (r) { return r.outcome; },
      cell: function (r, td) { textCell(td, outcomeNames[r.outcome], "c-outcome"); } }
  ]);

  /* A sample's verdict in one run, and its message (the first failure's difference or
   * error) below it when it has one. */
  function verdictCell(tr, index, message, run) {
    var td = tr.insertCell();
    td.dataset.run = run;
    if (index === undefined) { textCell(td, "-", "muted"); return; }
    td.appendChild(chip(V[index]));
    if (!message) return;
    var pre = document.createElement("pre");
    pre.className = "message";
    pre.textContent = S[message];
    td.appendChild(pre);
  }

  function links(r) {
    var line = document.createElement("p");
    line.className = "links";
    [["A", data.reports[0]], ["B", data.reports[1]]].forEach(function (run) {
      if (!run[1]) return;
      var a = document.createElement("a");
      /* the report's path was percent-encoded where the page was written (pagedata.py) */
      a.href = run[1] + "#problem=" + encodeURIComponent(r.id);
      a.textContent = "this problem in " + run[0] + "'s report";
      a.dataset.run = run[0];
      if (line.childNodes.length) line.appendChild(document.createTextNode(" \u00b7 "));
      line.appendChild(a);
    });
    return line;
  }

  function detail(r, td) {
    var changed = 0, count = Math.max(r.aVerdicts.length, r.bVerdicts.length);
    var table = document.createElement("table");
    table.className = "samples";
    var head = table.createTHead().insertRow();
    ["sample", "A: verdict, message", "B: verdict, message", ""].forEach(function (h) {
      var th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    });
    var body = table.createTBody();
    for (var i = 0; i < count; i++) {
      var tr = body.insertRow(), a = r.aVerdicts[i], b = r.bVerdicts[i];
      var differs = a !== undefined && b !== undefined && a !== b;
      tr.className = differs ? "sample changed" : "sample";
      textCell(tr.insertCell(), String(i + 1), "num");
      verdictCell(tr, a, r.aMessages[i], "A");
      verdictCell(tr, b, r.bMessages[i], "B");
      textCell(tr.insertCell(), differs ? "changed" : "", "c-change");
      changed += differs;
    }
    var note = document.createElement("p");
    note.className = "note";
    note.textContent = changedText(changed) + ". Samples are paired by their place in each " +
      "run's list: a change means something only when both runs grade the same samples.";
    td.appendChild(links(r));
    td.appendChild(table);
    td.appendChild(note);
  }

  function changedText(changed) {
    return changed === 1 ? "1 sample changed verdict" : changed + " samples changed verdict";
  }

  var element = function (id) { return document.getElementById(id); };
  var table = new PagedTable({
    table: element("pairs"), rows: rows, columns: columns, pageSize: data.pageSize,
    key: function (r) { return r.id; }, detail: detail, count: element("shown-count"),
    prev: element("page-prev"), next: element("page-next"), info: element("page-info")
  });

  fillSelect(element("filter-outcome"), ["", "a", "b", "both", "neither", "differs"],
    ["any outcome", "solved by A only", "solved by B only", "solved by both", "solved by neither",
      "pass@1 differs"]);
  fillSelect(element("filter-difficulty"), [""].concat(data.groups.difficulty),
    ["any difficulty"].concat(data.groups.difficulty));
  fillSelect(element("filter-platform"), [""].concat(data.groups.platform),
    ["any platform"].concat(data.groups.platform));

  function apply() {
    var outcome = element("filter-outcome").value, difficulty = element("filter-difficulty").value;
    var platform = element("filter-platform").value;
    var text = element("filter-id").value.trim().toLowerCase();
    table.setFilter(function (r) {
      if (outcome === "differs" ? r.diff === 0 : outcome && r.outcome !== outcome) return false;
      if (difficulty && r.difficulty !== difficulty) return false;
      if (platform && r.platform !== platform) return false;
      return !text || r.id.toLowerCase().indexOf(text) >= 0;
    });
  }

  ["filter-outcome", "filter-difficulty", "filter-platform"].forEach(function (id) {
    element(id).addEventListener("change", apply);
  });
  element("filter-id").addEventListener("input", apply);
  stickyHeader(element("pairs").parentElement);
  table.update();
  followControls(["filter-outcome", "filter-difficulty", "filter-platform", "filter-id"], apply);
  document.body.dataset.ready = String(Math.round(performance.now()));
})();
