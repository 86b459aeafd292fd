#!/usr/bin/env python3
# tests/docs.sh's check of the names the documents use: every file path
# (src/, tests/, bench/, man/, schemas/, contrib/), every option given to a
# clrtrace command, every CLRTRACE_* name and every event name must exist.
# The lists come from the tree and the tables, never by hand: the files
# from the source and build trees, the events from vocabulary.def, the
# variables from config.def (a CLRTRACE_* name may also be a journal field,
# made of the schema's field names, or a variable the test suite reads),
# the commands from `clrtrace --help`, and each option from clrtrace itself
# (`clrtrace COMMAND OPTION --help`: its option tables accept it or say
# "unknown option").  Usage: docs-names.py SRCDIR BUILDDIR CLRTRACE DOC...
import glob, json, os, re, subprocess, sys

src, build, clrtrace = sys.argv[1], sys.argv[2], sys.argv[3]
docs = sys.argv[4:]
bad = []


def text_of(path):
    t = open(os.path.join(src, path), encoding='utf-8').read()
    if path.startswith('man/'):
        t = re.sub(r'\\f(\[[^]]*\]|\(..|.)', '', t)
        t = t.replace('\\-', '-').replace('\\&', '').replace('\\e', '\\')
        t = re.sub(r'\\\(..', ' ', t)
        t = re.sub(r'^\.\\".*$', '', t, flags=re.M)
        # .BR a b / .IR a b: the words join
        t = re.sub(r'^\.(?:[BI]R|R[BI]|BI|IB) (.*)$',
                   lambda m: ''.join(w.strip('"') for w in re.findall(r'"[^"]*"|\S+', m.group(1))), t, flags=re.M)
        t = re.sub(r'^\.[A-Z]{1,2} ?', '', t, flags=re.M)
    return t


# --- the vocabularies, from their tables ---
vocab = open(os.path.join(src, 'src/common/vocabulary.def')).read()
events = set(re.findall(r'^EV\(\w+, "([^"]+)"', vocab, re.M))
cfg = open(os.path.join(src, 'src/common/config.def')).read()
variables = set('CLRTRACE_' + v for v in re.findall(r'^CT_VAR\((\w+),', cfg, re.M))
variables |= set(re.findall(r'^CT_ENV\("[^"]*?(CLRTRACE_\w+)', cfg, re.M))
schema = json.load(open(os.path.join(src, 'schemas/record.schema.json')))
props, paths = set(), set()


def walk(node, prefix):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == 'properties' and isinstance(v, dict):
                for name, sub in v.items():
                    props.add(name)
                    paths.add(prefix + name)
                    walk(sub, prefix + name + '.')
            elif k in ('$defs', 'definitions'):
                for sub in v.values():
                    walk(sub, '')
            else:
                walk(v, prefix)
    elif isinstance(node, list):
        for v in node:
            walk(v, prefix)


walk(schema, '')
jf = open(os.path.join(src, 'src/profiler/sinks/journal-fields.c')).read()
jf_fixed = set('CLRTRACE_' + f for f in re.findall(r'JF_PREFIX "(\w+)"', jf))
tests_text = ''.join(open(f, errors='replace').read() for f in (glob.glob(os.path.join(src, 'tests', '*.sh')) + glob.glob(os.path.join(src, 'tests', 'lib', '*.sh'))))
upper = set(p.upper() for p in props)


def journal_field(rest):
    # REST is CLRTRACE_'s tail: record field names joined by '_'
    ok = [True] + [False] * len(rest)
    for i in range(len(rest) + 1):
        if not ok[i]:
            continue
        for j in range(i + 1, len(rest) + 1):
            if rest[i:j] in upper and (j == len(rest) or rest[j] == '_'):
                ok[j if j == len(rest) else j + 1] = True
    return ok[len(rest)]


def variable_ok(v):
    if v in variables or v in jf_fixed or journal_field(v[len('CLRTRACE_'):]):
        return True
    if re.search(re.escape(v) + r'\b', tests_text):
        return True
    stem = v.rsplit('_', 1)[0] + '_$'
    return stem in tests_text


# commands, from `clrtrace --help`
helptext = subprocess.run([clrtrace, '--help'], capture_output=True, text=True).stdout
commands = re.findall(r'^  ([a-z]+) ', helptext, re.M)
if len(commands) < 5:
    print('FAIL: cannot read the commands from clrtrace --help')
    sys.exit(1)
probed = {}


def option_ok(cmd, opt):
    # ask clrtrace itself: the option tables decide, and --help stops it
    key = (cmd, opt)
    if key not in probed:
        o = opt.split('=', 1)[0]
        r = subprocess.run([clrtrace, cmd, o, '--help'], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=20)
        probed[key] = not re.search(r"(unknown option|unknown argument|unexpected argument) '%s'" % re.escape(o), r.stderr)
    return probed[key]


def exists(p):
    g = re.sub(r'<[^>]*>|\{[^}]*\}|%\w|\bN\b', '*', p)
    for top in (src, build):
        # a program is there once built: its source is enough
        if glob.glob(os.path.join(top, g)) or glob.glob(os.path.join(top, g + '.c')):
            return True
    return False


extensions = {'c', 'h', 'def', 'in', 'sh', 'md', 'json', 'jsonl', 'cs', 'py', 'so', 'conf', 'env', 'zst', 'catalog', 'sym', 'dll', 'txt', 'tsv'}
# dotted names the code itself uses (the chrome export's flow names)
literals = set()
for f in glob.glob(os.path.join(src, 'src', '**', '*.c'), recursive=True):
    literals |= set(re.findall(r'"([a-z_]+(?:\.[a-z_]+)+)"', open(f, errors='replace').read()))
path_re = re.compile(r'(?<![\w$/.~@-])((?:src|tests|bench|man|schemas|contrib)/[\w.*<>\[\]{}%+-]*(?:/[\w.*<>\[\]{}%+-]+)*/?)')
event_prefix = sorted(set(e.split('.')[0] for e in events))
event_re = re.compile(r'(?<![\w.$/-])((?:%s)\.[a-z_]+(?:\.[a-z_]+)*)(?![\w/-]|\.\w)' % '|'.join(event_prefix))
opt_re = re.compile(r'(?<![\w-])(--?[A-Za-z][\w-]*(?:=\S*)?)')
cmd_re = re.compile(r'\bclrtrace\s+(%s)\b([^`\n]*)' % '|'.join(commands))

for d in docs:
    t = text_of(d)
    for m in path_re.finditer(t):
        p = m.group(1).rstrip('.,:;)')
        while p.endswith(']') and p.count('[') < p.count(']'):
            p = p[:-1].rstrip('.,:;)')
        if p.endswith('/') and p.count('/') == 1 and p[:-1] in ('src', 'tests', 'bench', 'man', 'schemas', 'contrib'):
            continue
        if not exists(p):
            bad.append('%s names the file %s, which does not exist' % (d, p))
    for v in sorted(set(re.findall(r'\bCLRTRACE_[A-Z0-9_]*[A-Z0-9]\b', t))):
        if not variable_ok(v):
            bad.append('%s names %s, which is neither a variable (config.def) nor a journal field' % (d, v))
    for m in event_re.finditer(t):
        e = m.group(1)
        if e.rsplit('.', 1)[1] in extensions:
            continue
        if e not in events and e not in paths and e not in literals and not all(w in props for w in e.split('.')):
            bad.append('%s names the event %s, which vocabulary.def does not have' % (d, e))
    # options: in a `clrtrace COMMAND ...` command line, up to "--"
    for m in cmd_re.finditer(t):
        cmd, rest = m.group(1), m.group(2)
        rest = re.split(r'\s--(\s|$)|[|;&]|\s#', rest)[0]
        for o in opt_re.findall(rest):
            if not option_ok(cmd, o):
                bad.append('%s: clrtrace %s has no option %s' % (d, cmd, o.split('=', 1)[0]))
    # the option paragraphs of clrtrace(1): each .TP tag under a command's section
    if d == 'man/clrtrace.1.in':
        raw = open(os.path.join(src, d)).read().split('\n')
        section = []
        for i, line in enumerate(raw):
            if line.startswith('.SH'):
                section = []
            elif line.startswith('.SS'):
                name = line[3:].strip().strip('"')
                m = re.search(r'\(([^)]*)\)', name)
                words = re.findall(r'[a-z]+', m.group(1)) if m else name.split()
                section = [w for w in words if w in commands]
            elif line == '.TP' and section and i + 1 < len(raw):
                tag = raw[i + 1].replace('\\-', '-')
                tag = re.sub(r'\\f.', ' ', tag)
                for o in re.findall(r'(?<![\w-])(--?[A-Za-z][\w-]*)', tag):
                    for cmd in section:
                        if not option_ok(cmd, o):
                            bad.append('%s:%d: clrtrace %s has no option %s' % (d, i + 2, cmd, o))

for b in sorted(set(bad)):
    print('FAIL: ' + b)
print('checked %d documents: %d events, %d variables, %d commands, %d options probed' %
      (len(docs), len(events), len(variables), len(commands), len(probed)))
sys.exit(1 if bad else 0)
