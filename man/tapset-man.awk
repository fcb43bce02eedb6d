# tapset-man.awk - the function::NAME(3stap) and probe::NAME(3stap) pages
# of the tapsets, made from their doc comments at build time.
#
# A doc comment is "/** NAME - text */" (on one line, or over several
# lines each starting with " * ") right before the "function NAME..." or
# "probe NAME = ..." it documents; overloads of one function share a page.
# Names starting with "_" are private and get no page.
#
#   awk -v out=DIR -f tapset-man.awk FILE.stp ...
#
# writes DIR/function::NAME.3stap and DIR/probe::NAME.3stap, and
# DIR/index, one "kind name" line per page.
#
# A probe page's VALUES are the variables the alias's body assigns (at any
# depth, "try { v = ... }" too; not those starting with "_"), those of the
# @macros it uses (defined with @define in the same files) and those of
# the aliases it is made of ("probe a = b, c { }").

# Text for troff: backslashes escaped, `code` in bold, no line starting
# with a control character.
function troff(t)
{
	gsub(/\\/, "\\e", t)
	while (match(t, /`[^`]*`/))
		t = substr(t, 1, RSTART - 1) "\\fB" substr(t, RSTART + 1, RLENGTH - 2) \
		    "\\fR" substr(t, RSTART + RLENGTH)
	gsub(/-/, "\\-", t)
	if (t ~ /^[.']/)
		t = "\\&" t
	return t
}

# The first sentence of text (for the NAME line); "e.g." and "i.e." end
# none.
function summary(t,    i, p, s)
{
	p = 0
	while ((i = index(substr(t, p + 1), ". ")) > 0) {
		s = substr(t, 1, p + i)
		if (s !~ /(e\.g|i\.e)\.$/)
			return s
		p += i + 1
	}
	return t
}

function flush_decl(    kind, name, text, syn, k)
{
	if (decl ~ /^function /) {
		kind = "function"
		syn = decl
		sub(/^function +/, "", syn)
		sub(/\).*$/, ")", syn)
		gsub(/[ \t]+/, " ", syn)
		name = syn
		sub(/[ :(].*$/, "", name)
	} else {
		kind = "probe"
		syn = decl
		sub(/^probe +/, "", syn)
		name = syn
		sub(/[ \t]*\+?=.*$/, "", name)
		syn = name
	}
	text = doc
	sub(/^((function|probe) +)?[A-Za-z_0-9.*]+ +- +/, "", text)
	decl = ""
	doc = ""
	if (name ~ /^_/ || name == "")
		return
	k = kind "::" name
	if (!(k in pages)) {
		pages[k] = 1
		order[++npages] = k
		file_of[k] = FILENAME
		sum[k] = summary(text)
	}
	syns[k] = syns[k] ".BI \"" troff(syn) "\"\n.br\n"
	text = troff(toupper(substr(text, 1, 1)) substr(text, 2))
	if (!index(descs[k], text "\n"))
		descs[k] = descs[k] ".PP\n" text "\n"
}

# Add word w to the space-separated list vals[k] unless it is there.
function add_val(k, w)
{
	if (!index(" " vals[k] " ", " " w " "))
		vals[k] = vals[k] (vals[k] == "" ? "" : " ") w
}

# What line l of an alias's or a macro's body adds to vals[k]: the
# variable it assigns, "@NAME" for a macro it uses.
function body_line(k, l)
{
	if (match(l, /^[ \t]+(try \{ )?[a-z][a-z_0-9]* = /)) {
		l = substr(l, 1, RLENGTH - 3)
		sub(/^[ \t]+(try \{ )?/, "", l)
		add_val(k, l)
	} else if (match(l, /^[ \t]+@[A-Za-z_][A-Za-z_0-9]*/)) {
		l = substr(l, 1, RLENGTH)
		sub(/^[ \t]+/, "", l)
		add_val(k, l)
	}
}

# The variables of vals[k], its macros and aliases expanded (depth d).
function expand(k, d,    n, w, i, r, j, m, e, xs)
{
	r = ""
	n = split(vals[k], w, " ")
	for (i = 1; i <= n; i++) {
		if (w[i] ~ /^[@=]/ && d < 8) {
			e = expand((w[i] ~ /^@/ ? "macro::" : "probe::") substr(w[i], 2), d + 1)
			m = split(e, xs, " ")
			for (j = 1; j <= m; j++)
				if (!index(" " r " ", " " xs[j] " "))
					r = r (r == "" ? "" : " ") xs[j]
		} else if (w[i] !~ /^[@=]/ && !index(" " r " ", " " w[i] " "))
			r = r (r == "" ? "" : " ") w[i]
	}
	return r
}

# the body of a macro: "@define NAME(ARGS) %(" ... "%)"
/^@define[ \t]/ {
	mac = $2
	sub(/[(].*$/, "", mac)
	body = "macro::" mac
	want = 0
	next
}

body ~ /^macro::/ {
	if ($0 ~ /^%\)/)
		body = ""
	else
		body_line(body, $0)
	next
}

# an alias: the aliases it is made of ("=NAME") up to its "{", then the
# variables and macros of its body, up to the "}" closing it
/^probe[ \t]+[A-Za-z_0-9.]+[ \t]*\+?=/ {
	body = $2
	sub(/[ \t]*\+?=.*$/, "", body)
	body = "probe::" body
	inbody = 0
	rest = $0
	sub(/^probe[ \t]+[^=]*=[ \t]*/, "", rest)
}

body ~ /^probe::/ {
	if (!inbody) {
		if ($0 !~ /^probe[ \t]/)
			rest = $0
		pre = rest
		sub(/\{.*$/, "", pre)
		gsub(/[ \t]*[!?][ \t]*/, " ", pre)
		np = split(pre, ps, /[ \t]*,[ \t]*/)
		for (ip = 1; ip <= np; ip++) {
			gsub(/^[ \t]+|[ \t]+$/, "", ps[ip])
			if (ps[ip] ~ /^[A-Za-z_][A-Za-z_0-9.]*$/)
				add_val(body, "=" ps[ip])
		}
		if (index(rest, "{")) {
			inbody = 1
			rest = substr(rest, index(rest, "{") + 1)
			if (rest ~ /}[ \t]*$/)
				body = ""
		}
	} else if ($0 ~ /^}/)
		body = ""
	else
		body_line(body, $0)
}

# a doc comment opening
/^\/\*\*/ {
	indoc = 1
	doc = ""
	decl = ""
}

indoc {
	line = $0
	closed = sub(/[ \t]*\*\/.*$/, "", line)
	if (!sub(/^\/\*\*[ \t]*/, "", line))
		sub(/^[ \t]*\*[ \t]?/, "", line)
	if (line != "")
		doc = doc (doc == "" ? "" : " ") line
	if (closed) {
		indoc = 0
		want = 1
	}
	next
}

want && /^[ \t]*$/ {
	next
}

want {
	want = 0
	if ($0 ~ /^(function|probe) /) {
		decl = $0
		if (decl ~ /^function / && decl !~ /\)/) {
			pending = 1
			next
		}
		flush_decl()
	}
	next
}

pending {
	decl = decl " " $0
	if ($0 ~ /\)/) {
		pending = 0
		flush_decl()
	}
	next
}

END {
	for (i = 1; i <= npages; i++) {
		k = order[i]
		f = out "/" k ".3stap"
		src = file_of[k]
		sub(/^.*\/tapsets\//, "tapsets/", src)
		print ".\\\" generated from " src " by man/tapset-man.awk; do not edit" > f
		print ".TH \"" toupper(k) "\" 3stap \"\" \"SystemTap-compatible tracer\"" > f
		print ".SH NAME" > f
		print troff(k) " \\- " troff(sum[k]) > f
		print ".SH SYNOPSIS" > f
		printf "%s", syns[k] > f
		print ".SH DESCRIPTION" > f
		printf "%s", descs[k] > f
		ev = k ~ /^probe::/ ? expand(k, 0) : ""
		if (ev != "") {
			print ".SH VALUES" > f
			print "The variables the alias sets for the probe's body:" > f
			print ".IP" > f
			nv = split(ev, vs, " ")
			for (j = 1; j <= nv; j++)
				print ".B " vs[j] (j < nv ? "," : "") > f
		}
		print ".SH FILES" > f
		print ".I " troff(src) > f
		print ".SH SEE ALSO" > f
		if (k ~ /^function::/)
			print ".BR stapfuncs (3stap)," > f
		else
			print ".BR stapprobes (3stap)," > f
		print ".BR stap (1)" > f
		close(f)
		split(k, parts, "::")
		print parts[1], parts[2] > (out "/index")
	}
	close(out "/index")
}
