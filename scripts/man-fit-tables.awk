# Fits the tables of a man page that lowdown wrote (-Tman: each cell a tbl text block, T{ on
# its own line, the cell's text on one line, then T}|T{ or T}) into an 80-column terminal, so
# that groff renders them without a warning (the Makefile pipes carouselctl(1) and
# carouseld.conf(5) through it; docs/PACKAGING.md, "Man pages").
#
# lowdown's format line gives every column `l`: tbl then sizes the text blocks from the line
# length alone, a table of long cells overflows, and groff says so for each line it cannot
# break or adjust ("cannot adjust line", "cannot break line", "table column separation reduced
# to zero"; groff 1.23, Debian 13). Here the column with the most text is `x` (expanded: it
# takes what the others leave, at least LAST_MIN ens and its longest unbreakable piece); every
# other column gets a width, `w(N)` in ens: its longest cell, or its longest word when the cell
# is longer, narrowed an en at a time (the widest column first, never below its longest
# unbreakable piece) until the `x` column has its room. A table that cannot fit keeps lowdown's
# format and the script fails, naming it. Every cell is set ragged right without hyphenation
# (.na, .nh: narrow columns cannot be justified without stretching spaces, and keys must not
# be hyphenated); a word wider than 16 ens or than its column gets break points (\:) after its
# slashes, underscores and dots, so that a key, a path or a D-Bus name wraps where it reads.
#
#   LC_ALL=C awk [-v width=N] [-v debug=1] -f scripts/man-fit-tables.awk PAGE > FITTED
#
# N: the table's width in ens without its outer rules (default 69: MANWIDTH=80 less the 7-en
# indent of a man page's body and the two rules); debug=1 prints each column's sizes to stderr.
# LC_ALL=C: widths are counted in bytes, less UTF-8's continuation bytes (gawk and mawk alike).

BEGIN {
  if (width == "") width = 69
  LAST_MIN = 24
  intable = 0
}

# The width a cell's text takes on a terminal: font changes and \% \& \: take none, a named
# character (\(dq, \[...]) or an escaped one (\-, \e) takes one.
function visible(s) {
  gsub(/\\f(\([A-Z][A-Z]|\[[^]]*\]|[A-Z1-4P])/, "", s)
  gsub(/\\[%&:]/, "", s)
  gsub(/\\\([^ ][^ ]/, "x", s)
  gsub(/\\\[[^]]*\]/, "x", s)
  gsub(/\\[-e]/, "x", s)
  # UTF-8: count only the bytes that start a character.
  gsub(/[\200-\277]/, "", s)
  return length(s)
}

# The longest piece of s that cannot be broken: a word, or with break points after its slashes
# underscores and dots (breakable below), the longest part between them.
function longest_piece(s,    n, i, words, best, w) {
  gsub(/[\/_.-]/, "& ", s)
  return longest_word(s)
}

function longest_word(s,    n, i, words, best, w) {
  n = split(s, words, /[ ]+/)
  best = 0
  for (i = 1; i <= n; i++) { w = visible(words[i]); if (w > best) best = w }
  return best
}

# Break points (\:) after the slashes, underscores and dots of each word wider than `room` ens.
function breakable(s, room,    n, i, words, out) {
  n = split(s, words, / /)
  out = ""
  for (i = 1; i <= n; i++) {
    if (visible(words[i]) > room) gsub(/[\/_.]/, "&\\:", words[i])
    out = out (i > 1 ? " " : "") words[i]
  }
  return out
}

function flush(    i, c, ncols, used, w, fmt_head, fmt_body, ok, widest, prose, least, total) {
  # lines[1] .TS, lines[2] options, lines[3] heading format, lines[4] body format ending in ".",
  # then the cells.
  ncols = split(lines[3], heads, /[ ]+/)
  for (c = 1; c <= ncols; c++) { word[c] = 0; cell[c] = 0; piece[c] = 0; total[c] = 0 }
  # A row starts with T{ (column 1), each T}|T{ starts the next column; an empty cell has no
  # line of text.
  c = 0
  for (i = 5; i < nlines; i++) {
    if (lines[i] == "T{") { c = 1; continue }
    if (lines[i] == "T}|T{") { c++; continue }
    if (lines[i] == "T}") continue
    w = longest_word(lines[i]); if (w > word[c]) word[c] = w
    w = visible(lines[i]); if (w > cell[c]) cell[c] = w; total[c] += w
    w = longest_piece(lines[i]); if (w > piece[c]) piece[c] = w
  }
  # The column with the most text (the prose) takes what the others leave (`x`). Each other
  # column wants its longest cell, or its longest word if the cell is longer; each column
  # boundary takes 3 ens (a rule with a space each side). While the prose column would get
  # less than LAST_MIN, the widest other column gives up an en, down to its longest piece that
  # cannot be broken (a word, or the part of a path or key between its slashes or underscores).
  prose = 1
  for (c = 2; c <= ncols; c++) if (total[c] > total[prose]) prose = c
  used = 3 * (ncols - 1)
  for (c = 1; c <= ncols; c++) {
    if (c == prose) continue
    colw[c] = (cell[c] < word[c]) ? cell[c] : word[c]
    used += colw[c]
  }
  least = (piece[prose] + 2 > LAST_MIN) ? piece[prose] + 2 : LAST_MIN
  while (width - used < least) {
    widest = 0
    for (c = 1; c <= ncols; c++) if (c != prose && colw[c] > piece[c] && (widest == 0 || colw[c] > colw[widest])) widest = c
    if (widest == 0) break
    colw[widest]--; used--
  }
  if (debug) for (c = 1; c <= ncols; c++) printf "table at line %d, column %d: longest cell %d, word %d, piece %d; text %d; width %d\n", start, c, cell[c], word[c], piece[c], total[c], colw[c] > "/dev/stderr"
  colw[prose] = width - used
  ok = 1
  if (colw[prose] < least && ncols > 1) {
    printf "scripts/man-fit-tables.awk: %s: the table at line %d has %d columns: %d ens are left for column %d (at least %d wanted)\n", \
      FILENAME, start, ncols, colw[prose], prose, least > "/dev/stderr"
    failed = 1
    ok = 0
  }
  print lines[1]
  # tbl's `expand` and an `x` column exclude each other (groff 1.23 calls it an error).
  if (ok) sub(/expand ?/, "", lines[2])
  print lines[2]
  if (ok) {
    fmt_head = ""; fmt_body = ""
    for (c = 1; c <= ncols; c++) {
      fmt_head = fmt_head (c > 1 ? " " : "") (c == prose ? "lbx" : "lbw(" colw[c] "n)")
      fmt_body = fmt_body (c > 1 ? " " : "") (c == prose ? "lx" : "lw(" colw[c] "n)")
    }
    print fmt_head
    print fmt_body "."
  } else {
    print lines[3]
    print lines[4]
  }
  c = 0
  for (i = 5; i <= nlines; i++) {
    if (lines[i] == "T{" || lines[i] == "T}|T{") { c = (lines[i] == "T{") ? 1 : c + 1; print lines[i]; print ".na"; print ".nh"; continue }
    if (lines[i] == "T}" || lines[i] == ".TE") { print lines[i]; continue }
    print ok ? breakable(lines[i], (colw[c] < 16) ? colw[c] : 16) : lines[i]
  }
}

$0 == ".TS" { intable = 1; nlines = 0; start = FNR }
intable {
  lines[++nlines] = $0
  if ($0 == ".TE") { intable = 0; flush() }
  next
}
{ print }
END {
  if (intable) { printf "scripts/man-fit-tables.awk: %s: .TS at line %d has no .TE\n", FILENAME, start > "/dev/stderr"; exit 1 }
  if (failed) exit 1
}
