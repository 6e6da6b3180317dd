/* The run report's per-problem table: filters, sorting, pages, each problem's samples with
 * their programs (highlighted, shown as text) and failing tests. */
"use strict";

(function () {
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var S = data.strings, V = data.verdicts, P = data.programs, K = data.codeClasses;

  var rows = data.problems.map(function (p, index) {
    var samples = p[5], passed = 0, cpu = null, verdicts = {}, tests = {};
    samples.forEach(function (s) {
      passed += s[1];
      verdicts[V[s[0]]] = true;
      if (s[8] !== null && (cpu === null || s[8] > cpu)) cpu = s[8];
    });
    p[8].forEach(function (t) { tests[t[0]] = t; });
    return {
      index: index, id: p[0], difficulty: p[1], platform: p[2], date: p[3], month: p[4],
      samples: samples, passed: passed, pass1: samples.length ? passed / samples.length : null,
      cpu: cpu, verdicts: verdicts, timeLimit: p[6], memoryLimit: p[7], tests: tests,
      language: p[9], title: p[10], url: p[11], judgeReason: p[12], needsChecker: p[13]
    };
  });

  /* The limit that ended a test, in words (LIMIT_NAMES in words.py). */
  var LIMIT_NAMES = { cpu: "CPU time limit", wall: "wall-clock backstop", memory: "memory limit",
    output: "output limit" };
  /* which limit ended a TLE: the CPU time limit or the wall-clock backstop ('' for other
   * verdicts: an MLE's or OLE's limit goes without saying) */
  function limitName(s) {
    return V[s[0]] === "TLE" && S[s[13]] ? LIMIT_NAMES[S[s[13]]] || S[s[13]] : "";
  }

  function megabytes(kb) { return kb === null ? "-" : (kb / 1024).toFixed(1) + " MB"; }
  function count(n, what) { return n.toLocaleString("en-US") + " " + what + (n === 1 ? "" : "s"); }
  function lines(text) { return text ? text.split("\n").length - (text.slice(-1) === "\n" ? 1 : 0) : 0; }

  function pre(td, text) {
    if (!text) { td.textContent = ""; return; }
    var block = document.createElement("pre");
    block.textContent = text;
    td.appendChild(block);
  }

  /* A program, cut into spans at its highlighted runs ([gap, length, class] triples). */
  function code(program) {
    var block = document.createElement("pre"), text = program[0], runs = program[1], at = 0;
    block.className = "code";
    for (var i = 0; i < runs.length; i += 3) {
      if (runs[i]) block.appendChild(document.createTextNode(text.slice(at, at + runs[i])));
      at += runs[i];
      var span = document.createElement("span");
      span.className = "tk-" + K[runs[i + 2]];
      span.textContent = text.slice(at, at + runs[i + 1]);
      block.appendChild(span);
      at += runs[i + 1];
    }
    if (at < text.length) block.appendChild(document.createTextNode(text.slice(at)));
    return numbered(block, lines(text));
  }

  /* A program's lines numbered (tracebacks cite them) in a gutter of its own beside the
   * code: not part of the code's text, so selecting or copying the program leaves them out
   * (user-select: none, hidden from screen readers). */
  function numbered(block, count) {
    var listing = document.createElement("div"), gutter = document.createElement("pre"), numbers = [];
    for (var n = 1; n <= Math.max(count, 1); n++) numbers.push(n);
    listing.className = "listing";
    gutter.className = "gutter";
    gutter.setAttribute("aria-hidden", "true");
    gutter.textContent = numbers.join("\n");
    listing.appendChild(gutter);
    listing.appendChild(block);
    return listing;
  }

  function folded(summary, className) {
    var box = document.createElement("details"), head = document.createElement("summary");
    box.className = className;
    head.textContent = summary;
    box.appendChild(head);
    return box;
  }

  /* A NO_CODE sample: no program was found in its answer; the answer as given (its start),
   * so a reader sees what extraction lost. Text only (textContent): never markup. */
  function answerBox(s) {
    var part = document.createElement("div"), note = document.createElement("p");
    part.className = "no-code";
    note.className = "program-none";
    note.textContent = "no code extracted: no program was found in the answer" +
      (s[12] ? " (" + count(s[12], "character") + ")" : " (empty)");
    part.appendChild(note);
    if (!s[12]) return part;
    var text = S[s[11]], shown = text.length < s[12]
      ? ", the first " + count(text.length, "character") + " shown" : "";
    var box = folded("raw answer: " + count(lines(text), "line") + ", " +
      count(s[12], "character") + shown, "answer");
    var block = document.createElement("pre");
    block.className = "raw-answer";
    block.textContent = text;
    box.appendChild(block);
    part.appendChild(box);
    return part;
  }

  function programBox(index) {
    var program = P[index];
    if (!program[2]) {
      var none = document.createElement("p");
      none.className = "muted program-none";
      none.textContent = "no program: the answer holds no code";
      return none;
    }
    var shown = program[0].length < program[2]
      ? ", the first " + count(program[0].length, "character") + " shown" : "";
    var box = folded("program: " + count(lines(program[0]), "line") + ", " +
      count(program[2], "character") + shown, "program");
    box.appendChild(code(program));
    return box;
  }

  function excerpt(title, text, length) {
    var part = document.createElement("div"), head = document.createElement("h4");
    var cut = text.length < length ? " (the first " + count(text.length, "character") + ")" : "";
    head.textContent = title + ": " + count(length, "character") + cut;
    part.appendChild(head);
    var block = document.createElement("pre");
    block.textContent = text;
    part.appendChild(block);
    return part;
  }

  function visibility(test) {
    return test[1] === null ? "public or private: not recorded" : test[1] ? "public" : "private";
  }

  /* Where the program's output first differs from the expected output: {line, column}
   * (0-based) or null when they agree as far as both are shown. Lines compare without
   * trailing whitespace, as the checker reads them; a text cut short (`cut`: an excerpt of
   * a longer one) ends there, so its last, partial line differs only where it stops
   * agreeing, not by being short. */
  function firstDifference(actual, expected, actualCut, expectedCut) {
    var a = actual.replace(/\s+$/, "").split("\n"), b = expected.replace(/\s+$/, "").split("\n");
    for (var i = 0; i < Math.max(a.length, b.length); i++) {
      var x = i < a.length ? a[i].replace(/\s+$/, "") : null;
      var y = i < b.length ? b[i].replace(/\s+$/, "") : null;
      if ((x === null && actualCut) || (y === null && expectedCut)) return null;
      if (x === y) continue;
      var column = 0;
      while (x !== null && y !== null && column < x.length && x[column] === y[column]) column++;
      var xEnds = x !== null && column === x.length, yEnds = y !== null && column === y.length;
      if ((xEnds && actualCut && i === a.length - 1) || (yEnds && expectedCut && i === b.length - 1)) {
        return null;
      }
      return { line: i, column: column };
    }
    return null;
  }

  /* `text` in a <pre>, its line `at.line` marked (class first-diff) and, within it, the
   * character at `at.column` (a <mark>); the text itself unchanged (copying it copies the
   * output). Whole runs of lines are single text nodes: outputs can be long. */
  function markedPre(text, at) {
    var block = document.createElement("pre"), lines = text.split("\n");
    block.className = "output";
    if (!at || at.line >= lines.length) { block.textContent = text; return block; }
    var before = lines.slice(0, at.line).join("\n"), after = lines.slice(at.line + 1).join("\n");
    var line = lines[at.line], span = document.createElement("span"), mark = document.createElement("mark");
    if (at.line) block.appendChild(document.createTextNode(before + "\n"));
    span.className = "first-diff";
    span.appendChild(document.createTextNode(line.slice(0, at.column)));
    // the differing character, or a marked gap where this line ends before the other's
    mark.textContent = line.slice(at.column, at.column + 1);
    span.appendChild(mark);
    span.appendChild(document.createTextNode(line.slice(at.column + 1)));
    block.appendChild(span);
    if (at.line < lines.length - 1) block.appendChild(document.createTextNode("\n" + after));
    return block;
  }

  /* The program's output on the failing test beside the expected output (stacked on a narrow
   * screen), the first differing line marked in both, so a wrong answer reads at a glance. */
  function outputs(stdout, expected, expectedLength) {
    var pair = document.createElement("div"), expectedCut = expected.length < expectedLength;
    var at = firstDifference(stdout, expected, false, expectedCut);
    pair.className = "outputs";
    [["program's output (stdout, its start)", stdout, "actual"],
      ["expected output: " + count(expectedLength, "character") +
        (expectedCut ? " (the first " + count(expected.length, "character") + ")" : ""),
        expected, "expected"]].forEach(function (side) {
      var part = document.createElement("div"), head = document.createElement("h4");
      part.className = side[2];
      head.textContent = side[0];
      part.appendChild(head);
      part.appendChild(markedPre(side[1], at));
      pair.appendChild(part);
    });
    var where = document.createElement("p");
    where.className = "diff-note muted";
    where.textContent = at ? "first difference: line " + (at.line + 1) + ", character " +
      (at.column + 1) : "no difference in the parts shown";
    pair.appendChild(where);
    return pair;
  }

  function testBox(test, stdout) {
    var box = folded((test[0] > 0 ? "failing test #" + test[0] :
      "the failing test, its number not recorded") + " (" + visibility(test) + "): input " +
      count(test[3], "character") + ", expected output " + count(test[5], "character"), "test");
    var both = document.createElement("div");
    both.className = "row";
    both.appendChild(excerpt("input", S[test[2]], test[3]));
    box.appendChild(both);
    box.appendChild(outputs(stdout || "", S[test[4]], test[5]));
    return box;
  }

  var columns = problemColumns().concat([
    { sort: function (r) { return r.language; },
      cell: function (r, td) { textCell(td, r.language, "c-language"); } },
    { sort: function (r) { return r.date || null; },
      cell: function (r, td) { textCell(td, r.date.slice(0, 10), "c-date"); } },
    { sort: function (r) { return r.pass1; },
      cell: function (r, td) { textCell(td, percent(r.pass1), "num c-pass1"); } },
    { sort: function (r) { return r.passed; },
      cell: function (r, td) { textCell(td, r.passed + "/" + r.samples.length, "num c-passed"); } },
    { cell: function (r, td) {
      td.className = "c-verdicts";
      r.samples.forEach(function (s, i) {
        td.appendChild(chip(V[s[0]], "sample " + (i + 1) + ": " + V[s[0]] +
          (limitName(s) ? " (" + limitName(s) + ")" : "") + (S[s[5]] ? " \u2014 " + S[s[5]] : "")));
      });
    } },
    { sort: function (r) { return r.cpu; },
      cell: function (r, td) { textCell(td, seconds(r.cpu), "num c-cpu"); } }
  ]);

  var headings = ["sample", "verdict", "tests passed", "failing test", "slowest CPU",
    "peak memory", "difference or error", "stdout", "stderr"];

  function limitsLine(r) {
    var line = document.createElement("p");
    line.className = "limits";
    line.textContent = r.timeLimit === null ? "Limits: not recorded in these results." :
      "Limits: " + r.timeLimit + " s CPU per test, " + r.memoryLimit + " MB.";
    return line;
  }

  /* Why its judge is what it is, where its statement said (judge_reason in the results), and
   * whether its wrong answers were compared with one of many right answers. */
  function judgeLine(r) {
    var line = document.createElement("p");
    line.className = "judge-reason";
    line.textContent = "Judge, as its statement says: " + (r.judgeReason || "-") +
      (r.needsChecker ? " (many answers are right and it has no checker: a WA may be right)" : "");
    return line;
  }

  function detail(r, td) {
    td.appendChild(limitsLine(r));
    if (r.judgeReason || r.needsChecker) td.appendChild(judgeLine(r));
    var scroll = document.createElement("div"), table = document.createElement("table");
    scroll.className = "scroll";
    table.className = "samples";
    var head = table.createTHead().insertRow();
    headings.forEach(function (h) {
      var th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    });
    var body = table.createTBody();
    r.samples.forEach(function (s, i) {
      var tr = body.insertRow(), test = r.tests[s[4]];
      tr.className = "sample";
      textCell(tr.insertCell(), String(i + 1), "num");
      var verdict = tr.insertCell();
      verdict.appendChild(chip(V[s[0]], limitName(s) ? "ended by the " + limitName(s) : ""));
      if (limitName(s)) {  // which limit ended it: a CPU-time TLE or the wall-clock backstop
        var ended = document.createElement("div");
        ended.className = "ended-by muted";
        ended.textContent = limitName(s);
        verdict.appendChild(ended);
      }
      textCell(tr.insertCell(), s[2] === null ? "-" :
        Math.round(s[2] * s[3]) + "/" + s[3] + " (" + percent(s[2]) + ")", "num");
      textCell(tr.insertCell(), s[4] < 0 ? "not numbered" : s[4] ? "#" + s[4] +
        (test && test[1] !== null ? (test[1] ? " (public)" : " (private)") : "") : "-", "num");
      textCell(tr.insertCell(), seconds(s[8]), "num");
      textCell(tr.insertCell(), megabytes(s[9]), "num");
      pre(tr.insertCell(), S[s[5]]);
      pre(tr.insertCell(), S[s[6]]);
      pre(tr.insertCell(), S[s[7]]);
      var more = body.insertRow(), cell = more.insertCell();
      more.className = "sample-more";
      cell.colSpan = headings.length;
      cell.appendChild(V[s[0]] === "NO_CODE" ? answerBox(s) : programBox(s[10]));
      if (test) cell.appendChild(testBox(test, S[s[6]]));
    });
    scroll.appendChild(table);
    td.appendChild(scroll);
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

  /* A problem's contest day (YYYY-MM-DD), '' when its date is not one (pagedata.date_range
   * reads days the same way). */
  function day(r) { return /^\d{4}-\d{2}-\d{2}/.test(r.date) ? r.date.slice(0, 10) : ""; }

  var dates = element("filter-dates"), dateIds = dates ? ["filter-from", "filter-to"] : [];
  if (dates) dates.hidden = false;  // a date range needs the script: hidden without it

  function apply() {
    var verdict = verdictSelect.value, text = element("filter-id").value.trim().toLowerCase();
    var chosen = groups.map(function (g) { return [g[1], element(g[0]).value]; });
    var from = dates ? element("filter-from").value : "", to = dates ? element("filter-to").value : "";
    var filter = function (r) {
      if (verdict === "solved" && !r.passed) return false;
      if (verdict === "unsolved" && r.passed) return false;
      if (verdict.slice(0, 2) === "v:" && !r.verdicts[verdict.slice(2)]) return false;
      for (var i = 0; i < chosen.length; i++) {
        if (chosen[i][1] && r[chosen[i][0]] !== chosen[i][1]) return false;
      }
      if (from || to) {  // both ends included; a problem without a date is outside any range
        var d = day(r);
        if (!d || (from && d < from) || (to && d > to)) return false;
      }
      return !text || r.id.toLowerCase().indexOf(text) >= 0 ||
        r.title.toLowerCase().indexOf(text) >= 0;
    };
    table.setFilter(filter);
    showPass(rows.filter(filter));
  }

  /* pass@1 (percent) of `shown` as evaluator.summary.pass_rates computes it, step for step,
   * so that the rows of one difficulty give that difficulty's figure in the tables above:
   * each problem's unbiased pass@1 (formats.pass_at_k's products, k = 1), summed in file
   * order, averaged over the problems with samples, to 10 decimals; null when none has any. */
  function passAt1(shown) {
    var total = 0, used = 0;
    shown.forEach(function (r) {
      var n = r.samples.length, c = r.passed, failure = 1.0;
      if (!n) return;
      used++;
      if (n - c < 1) { total += 1.0; return; }
      for (var i = n - c + 1; i <= n; i++) failure *= 1.0 - 1 / i;
      total += 1.0 - failure;
    });
    return used ? Number((100 * total / used).toFixed(10)) : null;
  }

  /* A percentage as evaluator.summary.pct writes it: toFixed rounds the exact binary value
   * half away from zero, as summary.fixed does. */
  function pct(value) { return value === null ? "-" : value.toFixed(1) + "%"; }

  /* Beside the whole run's pass@1 (in the page), the pass@1 and count of the rows the filters
   * leave; nothing more when they leave every row. */
  function showPass(shown) {
    var line = element("filtered-pass");
    line.textContent = "";
    if (shown.length === rows.length) return;
    var problems = document.createElement("span"), value = document.createElement("b");
    problems.dataset.metric = "shown-problems";
    problems.textContent = shown.length.toLocaleString("en-US");
    value.dataset.metric = "shown-pass@1";
    value.textContent = pct(passAt1(shown));
    line.appendChild(document.createTextNode("the "));
    line.appendChild(problems);
    line.appendChild(document.createTextNode(" problem" + (shown.length === 1 ? "" : "s") +
      " shown: pass@1 "));
    line.appendChild(value);
    line.appendChild(document.createTextNode(" \u00b7 whole run: "));
  }

  /* The rows the filters leave, in the table's order (every page), as CSV (RFC 4180: a field
   * holding a comma, quote or line break is quoted, its quotes doubled; lines end CRLF),
   * built here and saved as a file: nothing is sent anywhere. */
  var csvColumns = [
    ["problem", function (r) { return r.id; }],
    ["title", function (r) { return r.title; }],
    ["url", function (r) { return r.url; }],
    ["difficulty", function (r) { return r.difficulty; }],
    ["platform", function (r) { return r.platform; }],
    ["language", function (r) { return r.language; }],
    ["contest date", function (r) { return r.date; }],
    ["samples", function (r) { return r.samples.length; }],
    ["passed", function (r) { return r.passed; }],
    ["pass@1 (%)", function (r) { return r.pass1 === null ? "" : (100 * r.pass1).toFixed(1); }],
    ["verdicts", function (r) { return r.samples.map(function (s) { return V[s[0]]; }).join(" "); }],
    ["slowest CPU (s)", function (r) { return r.cpu === null ? "" : r.cpu; }]
  ];

  function csvField(value) {
    var text = String(value);
    return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
  }

  function csvText(shown) {
    var lines = [csvColumns.map(function (c) { return csvField(c[0]); }).join(",")];
    shown.forEach(function (r) {
      lines.push(csvColumns.map(function (c) { return csvField(c[1](r)); }).join(","));
    });
    return lines.join("\r\n") + "\r\n";
  }

  var exportButton = element("export-csv");
  exportButton.hidden = false;  // built by the script: hidden without it
  exportButton.addEventListener("click", function () {
    var blob = new Blob([csvText(table.visible)], { type: "text/csv;charset=utf-8" });
    var link = document.createElement("a"), url = URL.createObjectURL(blob);
    link.href = url;
    link.download = "problems.csv";
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  });

  ["filter-verdict", "filter-difficulty", "filter-platform", "filter-month"].concat(dateIds)
    .forEach(function (id) { element(id).addEventListener("change", apply); });
  element("filter-id").addEventListener("input", apply);

  /* #problem=ID (the comparison page links here): that problem, opened. */
  function follow() {
    var hash = window.location.hash, prefix = "#problem=";
    if (hash.slice(0, prefix.length) !== prefix) return;
    var id;
    try { id = decodeURIComponent(hash.slice(prefix.length)); } catch (e) { return; }
    table.reveal(id);
  }
  window.addEventListener("hashchange", follow);
  stickyHeader(element("problems").parentElement);
  table.update();
  follow();
  /* Back or Forward to this page: the browser puts the filter controls back as they were
   * (or shows the page from its cache), after this script ran; the table follows them. */
  followControls(["filter-verdict", "filter-difficulty", "filter-platform", "filter-month",
    "filter-id"].concat(dateIds), function () { apply(); follow(); });
  document.body.dataset.ready = String(Math.round(performance.now()));
})();
