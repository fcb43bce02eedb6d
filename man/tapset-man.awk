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

# The first sentence of text (for the NAME line).
function summary(t,    i)
{
	i = index(t, ". ")
	if (i)
		t = substr(t, 1, i)
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
	if (kind == "probe")
		body = k
	syns[k] = syns[k] ".BI \"" troff(syn) "\"\n.br\n"
	if (!index(descs[k], troff(text) "\n"))
		descs[k] = descs[k] ".PP\n" troff(text) "\n"
}

# the variables a documented alias's body sets
body != "" {
	if ($0 ~ /^}/)
		body = ""
	else if (match($0, /^\t[a-z_][a-z_0-9]* = /)) {
		v = substr($0, 2, RLENGTH - 4)
		if (!index(" " vals[body] " ", " " v " "))
			vals[body] = vals[body] (vals[body] == "" ? "" : " ") v
	}
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
		if (vals[k] != "") {
			print ".SH VALUES" > f
			print "The variables the alias sets for the probe's body:" > f
			print ".IP" > f
			nv = split(vals[k], vs, " ")
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
