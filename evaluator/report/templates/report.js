/* The run report's per-problem table: filters, sorting, pages, each problem's samples. */
"use strict";

(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var S = data.strings, V = data.verdicts;

  var rows = data.problems.map(function (p, index) {
    var samples = p[5], passed = 0, cpu = null, verdicts = {};
    samples.forEach(function (s) {
      passed += s[1];
      verdicts[V[s[0]]] = true;
      if (s[8] !== null && (cpu === null || s[8] > cpu)) cpu = s[8];
    });
    return {
      index: index, id: p[0], difficulty: p[1], platform: p[2], date: p[3], month: p[4],
      samples: samples, passed: passed, pass1: samples.length ? passed / samples.length : null,
      cpu: cpu, verdicts: verdicts
    };
  });

  function seconds(value) {
    if (value === null) return "-";
    return value < 1 ? (1000 * value).toFixed(1) + " ms" : value.toFixed(2) + " s";
  }
  function megabytes(kb) { return kb === null ? "-" : (kb / 1024).toFixed(1) + " MB"; }

  function pre(td, text) {
    if (!text) { td.textContent = ""; return; }
    var block = document.createElement("pre");
    block.textContent = text;
    td.appendChild(block);
  }

  var columns = [
    { sort: function (r) { return r.id; }, cell: function (r, td, table) {
      var button = document.createElement("button");
      button.className = "toggle";
      button.textContent = table.opened.has(r.id) ? "\u25be" : "\u25b8";
      button.setAttribute("aria-label", "samples of " + r.id);
      button.addEventListener("click", function () { table.toggle(r); });
      td.appendChild(button);
      td.appendChild(document.createTextNode(r.id));
      td.className = "c-id";
    } },
    { sort: function (r) { return r.difficulty; },
      cell: function (r, td) { textCell(td, r.difficulty, "c-difficulty"); } },
    { sort: function (r) { return r.platform; },
      cell: function (r, td) { textCell(td, r.platform, "c-platform"); } },
    { sort: function (r) { return r.date || null; },
      cell: function (r, td) { textCell(td, r.date.slice(0, 10), "c-date"); } },
    { sort: function (r) { return r.pass1; },
      cell: function (r, td) { textCell(td, percent(r.pass1), "num c-pass1"); } },
    { sort: function (r) { return r.passed; },
      cell: function (r, td) { textCell(td, r.passed + "/" + r.samples.length, "num c-passed"); } },
    { cell: function (r, td) {
      td.className = "c-verdicts";
      r.samples.forEach(function (s, i) {
        var chip = document.createElement("span"), verdict = V[s[0]];
        chip.className = "chip " + verdictClass(verdict);
        chip.textContent = verdict;
        chip.title = "sample " + (i + 1) + ": " + verdict + (S[s[5]] ? " \u2014 " + S[s[5]] : "");
        td.appendChild(chip);
      });
    } },
    { sort: function (r) { return r.cpu; },
      cell: function (r, td) { textCell(td, seconds(r.cpu), "num c-cpu"); } }
  ];

  var headings = ["sample", "verdict", "tests passed", "failing test", "slowest CPU",
    "peak memory", "difference or error", "stdout", "stderr"];

  function detail(r, td) {
    var table = document.createElement("table");
    table.className = "samples";
    var head = table.createTHead().insertRow();
    headings.forEach(function (h) {
      var th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    });
    var body = table.createTBody();
    r.samples.forEach(function (s, i) {
      var tr = body.insertRow(), verdict = V[s[0]];
      textCell(tr.insertCell(), String(i + 1), "num");
      var cell = tr.insertCell(), chip = document.createElement("span");
      chip.className = "chip " + verdictClass(verdict);
      chip.textContent = verdict;
      cell.appendChild(chip);
      textCell(tr.insertCell(), s[2] === null ? "-" :
        Math.round(s[2] * s[3]) + "/" + s[3] + " (" + percent(s[2]) + ")", "num");
      textCell(tr.insertCell(), s[4] ? "#" + s[4] : "-", "num");
      textCell(tr.insertCell(), seconds(s[8]), "num");
      textCell(tr.insertCell(), megabytes(s[9]), "num");
      pre(tr.insertCell(), S[s[5]]);
      pre(tr.insertCell(), S[s[6]]);
      pre(tr.insertCell(), S[s[7]]);
    });
    td.appendChild(table);
  }

  var element = function (id) { return document.getElementById(id); };
  var table = new PagedTable({
    table: element("problems"), rows: rows, columns: columns, pageSize: data.pageSize,
    key: function (r) { return r.id; }, detail: detail, count: element("shown-count"),
    prev: element("page-prev"), next: element("page-next"), info: element("page-info")
  });

  var verdictSelect = element("filter-verdict");
  fillSelect(verdictSelect, ["", "solved", "unsolved"].concat(V.map(function (v) { return "v:" + v; })),
    ["any verdict", "solved (a sample passes)", "unsolved (none passes)"].concat(
      V.map(function (v) { return "a sample got " + v; })));
  var groups = [["filter-difficulty", "difficulty", "any difficulty"],
    ["filter-platform", "platform", "any platform"], ["filter-month", "month", "any month"]];
  groups.forEach(function (g) {
    fillSelect(element(g[0]), [""].concat(data.groups[g[1]]), [g[2]].concat(data.groups[g[1]]));
  });

  function apply() {
    var verdict = verdictSelect.value, text = element("filter-id").value.trim().toLowerCase();
    var chosen = groups.map(function (g) { return [g[1], element(g[0]).value]; });
    table.setFilter(function (r) {
      if (verdict === "solved" && !r.passed) return false;
      if (verdict === "unsolved" && r.passed) return false;
      if (verdict.slice(0, 2) === "v:" && !r.verdicts[verdict.slice(2)]) return false;
      for (var i = 0; i < chosen.length; i++) {
        if (chosen[i][1] && r[chosen[i][0]] !== chosen[i][1]) return false;
      }
      return !text || r.id.toLowerCase().indexOf(text) >= 0;
    });
  }

  ["filter-verdict", "filter-difficulty", "filter-platform", "filter-month"].forEach(function (id) {
    element(id).addEventListener("change", apply);
  });
  element("filter-id").addEventListener("input", apply);
  table.update();
  document.body.dataset.ready = String(Math.round(performance.now()));
})();
