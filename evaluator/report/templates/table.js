/* A paged, sortable, filterable table over an array of row objects (both report pages).
 *
 * new PagedTable({table, rows, columns, key, pageSize, count, prev, next, info, detail})
 *   columns: [{sort: row => number|string|null (optional), cell: (row, td) => void}], in the
 *   order of the table's <th> elements; a <th data-sort="i"> sorts by column i.
 *   detail: optional (row, td) => void, shown below a row whose key is in `opened`; drawn once
 *   per opening and kept while the row stays open, so boxes opened inside it stay open when
 *   another row opens or the table is drawn again.
 * Everything is written with textContent: no row text is ever parsed as markup.
 */
"use strict";

function PagedTable(options) {
  this.o = options;
  this.filter = function () { return true; };
  this.sortColumn = null;
  this.sortDirection = 1;
  this.page = 0;
  this.opened = new Set();
  this.details = new Map();  // key -> its drawn detail cell, while opened
  this.visible = options.rows.slice();
  var self = this;
  options.table.querySelectorAll("th[data-sort]").forEach(function (th) {
    sortButton(th).addEventListener("click", function () { self.sortBy(Number(th.dataset.sort), th); });
  });
  options.prev.addEventListener("click", function () { self.turn(-1); });
  options.next.addEventListener("click", function () { self.turn(1); });
}

PagedTable.prototype.setFilter = function (filter) {
  this.filter = filter;
  this.page = 0;
  this.update();
};

PagedTable.prototype.sortBy = function (column, th) {
  this.sortDirection = this.sortColumn === column ? -this.sortDirection : 1;
  this.sortColumn = column;
  this.o.table.querySelectorAll("th[data-sort]").forEach(function (other) {
    other.removeAttribute("aria-sort");
  });
  th.setAttribute("aria-sort", this.sortDirection > 0 ? "ascending" : "descending");
  this.page = 0;
  this.update();
};

PagedTable.prototype.turn = function (step) {
  var pages = Math.max(1, Math.ceil(this.visible.length / this.o.pageSize));
  this.page = Math.min(pages - 1, Math.max(0, this.page + step));
  this.render();
};

/* Show the row whose key is `key` opened, on its page, scrolled into view; false when no
 * row shown has that key (filtered out, or none). */
PagedTable.prototype.reveal = function (key) {
  var o = this.o, index = -1;
  for (var i = 0; i < this.visible.length; i++) {
    if (o.key(this.visible[i]) === key) { index = i; break; }
  }
  if (index < 0) return false;
  this.page = Math.floor(index / o.pageSize);
  this.opened.add(key);
  this.render();
  var rows = o.table.tBodies[0].rows;
  for (var j = 0; j < rows.length; j++) {
    if (rows[j].dataset.key === key) { rows[j].scrollIntoView(); break; }
  }
  return true;
};

/* Open or close a row; focus follows: into the opened row's samples (a keyboard or screen
 * reader user lands on what they asked for), or back to the row's own button when closed
 * (drawing the page again replaced the one that had focus). */
PagedTable.prototype.toggle = function (row) {
  var key = this.o.key(row), opening = !this.opened.has(key);
  if (opening) this.opened.add(key); else { this.opened.delete(key); this.details.delete(key); }
  this.render();
  var rows = this.o.table.tBodies[0].rows;
  for (var i = 0; i < rows.length; i++) {
    if (rows[i].dataset.key !== key) continue;
    var target = opening ? this.details.get(key) : rows[i].querySelector(".toggle");
    if (target) target.focus({ preventScroll: !opening });
    break;
  }
};

/* A row's detail cell: the one drawn when it opened (its boxes as the reader left them),
 * else drawn now. Focusable from script only (tabindex -1), so focus can move into it. */
PagedTable.prototype.detailCell = function (row) {
  var key = this.o.key(row), td = this.details.get(key);
  if (!td) {
    td = document.createElement("td");
    td.colSpan = this.o.columns.length;
    td.tabIndex = -1;
    td.setAttribute("aria-label", "samples of " + key);
    this.o.detail(row, td);
    this.details.set(key, td);
  }
  return td;
};

/* Filter, then sort (stable: ties keep file order; empty values last). */
PagedTable.prototype.update = function () {
  var rows = this.o.rows.filter(this.filter);
  if (this.sortColumn !== null) {
    var get = this.o.columns[this.sortColumn].sort, direction = this.sortDirection;
    var keyed = rows.map(function (row, index) { return [get(row), index, row]; });
    keyed.sort(function (x, y) {
      var a = x[0], b = y[0];
      if (a === null || a === undefined) return b === null || b === undefined ? x[1] - y[1] : 1;
      if (b === null || b === undefined) return -1;
      if (a < b) return -direction;
      if (a > b) return direction;
      return x[1] - y[1];
    });
    rows = keyed.map(function (k) { return k[2]; });
  }
  this.visible = rows;
  this.render();
};

PagedTable.prototype.render = function () {
  var o = this.o, size = o.pageSize, total = this.visible.length;
  var pages = Math.max(1, Math.ceil(total / size));
  if (this.page >= pages) this.page = pages - 1;
  var start = this.page * size, rows = this.visible.slice(start, start + size);
  var body = document.createElement("tbody"), self = this;
  rows.forEach(function (row) {
    var tr = body.insertRow();
    tr.className = "item";
    tr.dataset.key = o.key(row);
    o.columns.forEach(function (column) { column.cell(row, tr.insertCell(), self); });
    if (o.detail && self.opened.has(o.key(row))) {
      var extra = body.insertRow();
      extra.className = "detail";
      extra.appendChild(self.detailCell(row));
    }
  });
  var old = o.table.tBodies[0];
  if (old) o.table.replaceChild(body, old); else o.table.appendChild(body);
  o.count.textContent = total === o.rows.length
    ? total + " problems"
    : total + " of " + o.rows.length + " problems";
  o.info.textContent = total ? "rows " + (start + 1) + "\u2013" + (start + rows.length) +
    ", page " + (this.page + 1) + " of " + pages : "no problem matches";
  o.prev.disabled = this.page === 0;
  o.next.disabled = this.page >= pages - 1;
};

/* Helpers for cells. */
function textCell(td, text, className) {
  td.textContent = text;
  if (className) td.className = className;
}

/* A share (0..1) as a percentage with one decimal, as every table shows it (pagedata.py
 * renders the first page the same way). */
function percent(value) {
  return value === null || value === undefined ? "-" : (100 * value).toFixed(1) + "%";
}

/* CPU seconds: "12.3 ms" below a second, else "1.04 s" (words.seconds in Python). */
function seconds(value) {
  if (value === null || value === undefined) return "-";
  return value < 1 ? (1000 * value).toFixed(1) + " ms" : value.toFixed(2) + " s";
}

/* A row's first cell: one button, the arrow and the key (the problem id), that opens or
 * closes its detail: the id is what a reader clicks ("click a problem") and a large target;
 * the arrow is decoration (aria-hidden), aria-expanded says the state. */
function toggleCell(row, td, table) {
  var id = table.o.key(row), button = document.createElement("button"), open = table.opened.has(id);
  var arrow = document.createElement("span");
  button.className = "toggle";
  button.type = "button";
  arrow.className = "arrow";
  arrow.setAttribute("aria-hidden", "true");
  arrow.textContent = open ? "\u25be" : "\u25b8";
  button.appendChild(arrow);
  button.appendChild(document.createTextNode(id));
  button.setAttribute("aria-expanded", String(open));
  button.addEventListener("click", function () { table.toggle(row); });
  td.appendChild(button);
  td.className = "c-id";
  problemName(row, td);
}

/* A problem's title and a link to its page on its platform, under its id, where the results
 * carry them (the id alone is a bare number for LeetCode). Text only; the link is http(s),
 * checked when the page was written. */
function problemName(row, td) {
  if (!row.title && !row.url) return;
  var line = document.createElement("div");
  line.className = "problem-name";
  if (row.title) {
    var title = document.createElement("span");
    title.className = "problem-title";
    title.textContent = row.title;
    line.appendChild(title);
  }
  if (row.url) {
    var link = document.createElement("a");
    link.href = row.url;
    link.rel = "noopener noreferrer";
    link.target = "_blank";
    link.className = "problem-link";
    link.textContent = row.title ? "page" : "problem page";
    link.setAttribute("aria-label", "the problem's page on " + (row.platform || "its platform"));
    line.appendChild(document.createTextNode(" "));
    line.appendChild(link);
  }
  td.appendChild(line);
}

/* A sortable header's text moved into a button, so the keyboard reaches and operates it
 * (Tab, Enter, Space); the header keeps aria-sort, which screen readers read on the column.
 * Done by the script: without it the headers cannot sort and stay plain text. */
function sortButton(th) {
  var button = document.createElement("button");
  button.type = "button";
  button.className = "sort";
  while (th.firstChild) button.appendChild(th.firstChild);
  th.appendChild(button);
  return button;
}

/* The columns both pages' problem tables start with: the id (opens the row), difficulty and
   platform. */
function problemColumns() {
  return [
    { sort: function (r) { return r.id; },
      cell: function (r, td, table) { toggleCell(r, td, table); } },
    { sort: function (r) { return difficultyRank(r.difficulty); },
      cell: function (r, td) { textCell(td, r.difficulty, "c-difficulty"); } },
    { sort: function (r) { return r.platform; },
      cell: function (r, td) { textCell(td, r.platform, "c-platform"); } },
  ];
}

/* A difficulty's place when sorting: easy, medium, hard, then any other name in order
 * (alphabetically, hard would come before medium). */
function difficultyRank(name) {
  var known = { easy: "0", medium: "1", hard: "2" };
  return (known[name] || "3") + name;
}

/* A verdict's coloured chip. */
function chip(verdict, title) {
  var span = document.createElement("span");
  span.className = "chip " + verdictClass(verdict);
  span.textContent = verdict;
  if (title) span.title = title;
  return span;
}

function fillSelect(select, values, labels) {
  values.forEach(function (value, index) {
    var option = document.createElement("option");
    option.value = value;
    option.textContent = labels ? labels[index] : value;
    select.appendChild(option);
  });
}

function verdictClass(verdict) {
  return "v-" + String(verdict).replace(/[^A-Za-z0-9_-]/g, "_");
}


/* Run ``restore`` when the page is shown again with the controls ``ids`` holding other values
 * than the script left them with: Back and Forward put a form's values back (Chromium after
 * the scripts ran, or from its page cache), and a table drawn for the old values would list
 * rows the menus say are filtered out. */
function followControls(ids, restore) {
  function values() {
    return ids.map(function (id) { return document.getElementById(id).value; }).join("\u0000");
  }
  var drawnFor = values();
  function check() {
    var now = values();
    if (now !== drawnFor) { drawnFor = now; restore(); }
  }
  window.addEventListener("pageshow", check);
  window.addEventListener("load", check);
  ids.forEach(function (id) {
    var control = document.getElementById(id);
    control.addEventListener("change", function () { drawnFor = values(); });
    control.addEventListener("input", function () { drawnFor = values(); });
  });
}


/* A problem table's box (.table-box) keeps its header row on screen as the page scrolls.
 * Where the table fits the page's width the box stops being a scrolling box (class "fits")
 * and the header sticks to the window's top (CSS); where it does not (a phone) the box
 * scrolls sideways (class "overflows") and the header is moved down with the page here, as
 * far as the table's end. Checked again whenever the table or the window changes size (rows
 * drawn, a problem opened). Without the script the CSS alone keeps it: the table scrolls in
 * a box as tall as the window on a phone, its header stuck to the box's top. */
function stickyHeader(box) {
  var table = box.querySelector("table"), head = table.tHead, waiting = false;
  function pin() {
    waiting = false;
    var shift = 0;
    if (!box.classList.contains("fits")) {
      var top = table.getBoundingClientRect().top;
      shift = Math.max(0, Math.min(-top, table.offsetHeight - head.offsetHeight));
    }
    head.style.transform = shift ? "translateY(" + shift + "px)" : "";
  }
  function check() {
    var fits = table.offsetWidth <= box.offsetWidth;
    box.classList.toggle("fits", fits);
    box.classList.toggle("overflows", !fits);
    pin();
  }
  // first checked once the page is laid out (an observer reports a size when it starts):
  // measuring here would lay the page out before its table is drawn
  if (window.ResizeObserver) new ResizeObserver(check).observe(table); else check();
  window.addEventListener("resize", check);
  window.addEventListener("scroll", function () {
    if (!waiting) { waiting = true; window.requestAnimationFrame(pin); }
  }, { passive: true });
}
