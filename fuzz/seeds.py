import os, json
root = 'corpus'
def write(target, name, data):
    d = os.path.join(root, target); os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f: f.write(data)

# query_string: selector '0' sqlite /items/ anon; '1' postgres; '2' small limits; '4'/'5' paged; '8'/'9' cursor;
# 'a' postgres /items/ staff with rows; 'E' postgres paged rows; 'Q' postgres /items/ user rows; 'I' postgres cursor rows.
q = {
 'valid': '1views__gte=10&ordering=-views&limit=5',
 'all-lookups': 'avws=1&views__gt=2.5&views__lte=1e-5&big__lt=9.1e15&small__gte=32768&rating__lt=inf&ratio__gt=NaN&born__gte=2026-02-30&opens__lt=24:00:00&seen__gt=2026-11-22+10:00:00.123&created_at__in=2026-11-22,0001-01-01&published__isnull=yes&title__icontains=%25_%5C&body__contains=a_b',
 'offset-max': '0offset=9223372036854775807',
 'offset-over': '1offset=9223372036854775808',
 'limit-over': '0limit=9223372036854775808&limit=1',
 'page-over': '5page_size=20&page=500000000000000000',
 'page-edge': '4page_size=7&page=1317624576693539401',
 'page-past-last': 'Epage=2',
 'nul-search': '1search=a%00b',
 'nul-in': '0title__in=a%00b,c',
 'dates-out': '1created_at__gt=-262143-01-01&born__lt=0000-12-31&seen__gte=9999-12-31T23:00:00-05:00&created_at__lte=0001-01-01T00:30:00%2B01:00',
 'ordering-21': '0ordering=' + ','.join(['views'] * 21),
 'ordering-mixed': 'aordering=-secret,label,-nope,,--id,-,rating',
 'search-1001': '1search=' + 'a' * 1001,
 'duplicates': '0views=1&views=300&limit=1&limit=2',
 'cursor-dup': '8cursor=&cursor=',
 'small-limits': '2a=1&b=2&c=3&d=4&e=5&f=6&g=7&views__in=1,2,3,4&ordering=id,views,title&search=abcdef',
 'unsupported': '1meta=%7B%7D&meta__gt=1&published__gt=true&views__contains=1&title__regex=x&views__=1&__in=1',
 'renamed': 'Qlabel=x&label_text=y&label__isnull=false',
 'secret-anon': '0secret__icontains=s&search=s&ordering=-secret',
 'fields-staff': 'afields=id,secret,label&ordering=-views',
 'fields-hidden': 'Qfields=secret',
 'fields-bad': '0fields=id,,label&fields=id',
 'count-estimated': 'Ecount=estimated&page=3',
 'count-none': '1count=none&limit=1',
 'injection': "1search='%20OR%20'1'='1&title=%22;DROP%20TABLE%20items;--",
 'bad-escapes': '0title=%ZZ%&%=%%25&views=%31%3',
 'unicode': '1title__icontains=%C3%A9%F0%9F%98%80&search=%E2%80%AE',
 'bools-nulls': '0published=maybe&rating=null&big=None&born=&opens__isnull=2',
 'in-lists': '1views__in=1,%202%20,,3&rating__in=null&born__in=2026-11-22,x',
 'cursor-garbage': 'Icursor=garbage&ordering=-rating',
 'floats-int': '0views__gt=-0.5&views__gte=1e300&small__lt=-32768.5&big__lte=9223372036854775807.0',
 'or-group': 'aor=(views__gt.100,and(rating__isnull.true,title__in.%22a,(b)%22),or(label.x,published.yes))',
 'or-bad': '1or=(and(or(and(views.1))),secret.s,views__near.1,%22&or=(',
 'or-terms': '2or=(' + ','.join(['views.1'] * 21) + ')',
 'format-csv': 'Qformat=csv&fields=id,label&or=(label.%22x%5C%22y%22)',
}
for k, v in q.items(): write('query_string', k, v.encode())

# cursor: selector bits 0 backend, 1-3 ordering, 4 staff, 5-6 mode (0 raw, 1 signed payload, 2-3 structured), 7 limit=1
def sel(backend=0, ordering=0, staff=0, mode=0, limit=0):
    return bytes([backend | ordering << 1 | staff << 4 | mode << 5 | limit << 7])
for i, raw in enumerate([b'', b'garbage', b'a.b', b'.', b'eyJ2IjpbNV0sImIiOmZhbHNlLCJvIjoiLWlkIn0.AAAA',
                         b'eyJ2IjpbNV0sImIiOmZhbHNlLCJvIjoiLWlkIn0', b'%ZZ.%00', b'x' * 300]):
    write('cursor', f'raw-{i}', sel(backend=i & 1, ordering=i % 8, mode=0) + raw)
payloads = [
 (0, {"v": [5], "b": False, "o": "-id"}), (0, {"v": [None], "b": True, "o": "-id"}),
 (0, {"v": ["x"], "b": False, "o": "-id"}), (0, {"v": [{"a": 1}], "b": False, "o": "-id"}),
 (0, {"v": [], "b": False, "o": "-id"}), (0, {"v": [1e308], "b": False, "o": "-id"}),
 (1, {"v": [5, 6], "b": False, "o": "-views,id"}), (1, {"v": [2147483648, 1], "b": True, "o": "-views,id"}),
 (2, {"v": [None, 3], "b": False, "o": "rating,id"}), (2, {"v": ["NaN", 3], "b": True, "o": "rating,id"}),
 (3, {"v": ["x", "0000-12-31", 1], "b": False, "o": "title,-born,id"}),
 (4, {"v": ["2026-11-22T10:00:00", "24:00:00", 3.5e38, 1], "b": False, "o": "-seen,opens,ratio,id"}),
 (5, {"v": [9223372036854775807, 32768, "maybe", 1], "b": False, "o": "big,-small,published,id"}),
 (6, {"v": ["10000-01-01T00:00:00Z", "l", 1], "b": True, "o": "-created_at,label_text,id"}),
 (7, {"v": ["s", 1], "b": False, "o": "-secret,id"}),
]
for i, (ordering, p) in enumerate(payloads):
    write('cursor', f'signed-{i}', sel(backend=i & 1, ordering=ordering, staff=int(ordering == 7), mode=1) + json.dumps(p).encode())
by_key = [
 (0, {"v": [2], "b": False, "o": "-id", "k": True}), (3, {"v": [1], "b": True, "o": "title,-born,id", "k": True}),
 (3, {"v": ["x", "0000-12-31", 1], "b": False, "o": "title,-born,id", "k": True}), (2, {"v": [None], "b": False, "o": "rating,id", "k": True}),
 (1, {"v": [99], "b": False, "o": "-views,id", "k": True}), (0, {"v": [2], "b": False, "o": "-id", "k": 1}),
]
for i, (ordering, p) in enumerate(by_key):
    write('cursor', f'by-key-{i}', sel(backend=i & 1, ordering=ordering, mode=1, limit=i & 1) + json.dumps(p).encode())
for i, raw in enumerate([b'null', b'[]', b'{}', b'{"v":[1],"b":1,"o":"-id"}', b'{"v":[1],"b":false,"o":"-id","x":1}']):
    write('cursor', f'signed-odd-{i}', sel(mode=1, backend=i & 1) + raw)
for i in range(4):
    write('cursor', f'structured-{i}', sel(backend=i & 1, ordering=2 * i + 1, staff=i & 1, mode=2 + (i >> 1), limit=i & 1) + bytes((i * 37 + j) % 256 for j in range(160)))

# body: selector bits 0 backend, 1 PATCH, 2-3 caller (0 anon, 1 user, 2 staff), 4-5 content type (0 json,
# 1 merge-patch, 2 none, 3 text/plain), 6 structured, 7 padded
def bsel(backend=0, patch=0, caller=1, ctype=0, structured=0, pad=0):
    return bytes([backend | patch << 1 | caller << 2 | ctype << 4 | structured << 6 | pad << 7])
valid = {"title": "a", "body": "b", "small": 1, "ratio": 0.5}
bodies = [
 (0, valid), (0, dict(valid, title="a\u0000b")), (0, dict(valid, title="x" * 41)), (0, dict(valid, title="é" * 40)),
 (0, dict(valid, views=5.0)), (0, dict(valid, views=2147483648)), (0, dict(valid, small=32768)),
 (0, dict(valid, ratio=3.5e38)), (0, dict(valid, ratio=1e-46)), (0, dict(valid, rating=1e308, big=9.3e18)),
 (0, dict(valid, born="0000-12-31", opens="24:00:00", seen="2026-11-22T10:00:00")),
 (0, dict(valid, born="10000-01-01")), (0, dict(valid, created_at="2026-11-22T10:00:00Z")), (0, dict(valid, id=5)),
 (0, dict(valid, secret="x")), (0, dict(valid, label_text="x")), (0, dict(valid, meta={"a": [1, {"b": None}]})),
 (1, {"views": None}), (1, {"rating": None, "label": None}), (1, {}), (1, {"title": "y" * 40, "published": "yes"}),
 (1, {"secret": "s"}), (1, {"nope": 1}),
]
for i, (patch, b) in enumerate(bodies):
    write('body', f'json-{i}', bsel(backend=i & 1, patch=patch, caller=2 if i == 14 else 1) + json.dumps(b, ensure_ascii=False).encode())
raws = [b'[1,2]', b'"str"', b'5', b'null', b'', b'   ', b'{', b'{} x', b'{"title":', b'[' * 200 + b']' * 200,
        b'{"title":"a","title":"b","body":"c","small":1,"ratio":1}', b'{"title":"a\\\\u0000b","body":"c","small":1,"ratio":1}',
        b'{"title":"a\\ud800","body":"c","small":1,"ratio":1}', b'\xff\xfe{}', b'{"views":1e400}']
for i, raw in enumerate(raws):
    write('body', f'raw-{i}', bsel(backend=i & 1, patch=i & 2 and 1, ctype=(i % 5 == 4) and 1 or 0) + raw)
write('body', 'text-plain', bsel(ctype=3) + json.dumps(valid).encode())
write('body', 'no-content-type', bsel(ctype=2) + json.dumps(valid).encode())
write('body', 'padded', bsel(pad=1, patch=1) + b'{"views": 7}')
for i in range(3):
    write('body', f'structured-{i}', bsel(backend=i & 1, patch=i & 1, caller=i, structured=1) + bytes((i * 50 + j) % 256 for j in range(120)))

# jwt_token: the bytes are the bearer token (fuzz/src/jwt.rs); `valid` is signed with the harness's HMAC secret.
import base64
b64 = lambda raw: base64.urlsafe_b64encode(raw).rstrip(b'=')
valid_jwt = b'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6ImhzIn0.eyJzdWIiOiJmdXp6IiwiZXhwIjo0MTAyNDQ0ODAwLCJzY29wZSI6InBvc3RzOndyaXRlIiwicmVhbG1fYWNjZXNzIjp7InJvbGVzIjpbImFkbWluIl19fQ.gQD_hU7gCwKkROSb9aCq-zUdsRP0eVwgmJ_c6pxymQk'
head, claims, mac = valid_jwt.split(b'.')
jwt_seeds = {
 'valid': valid_jwt,
 'none': b64(b'{"alg":"none"}') + b'.' + claims + b'.',
 'hs256-rsa-kid': b64(b'{"alg":"HS256","kid":"rsa"}') + b'.' + claims + b'.' + mac,
 'rs256-unknown-kid': b64(b'{"alg":"RS256","kid":"other"}') + b'.' + claims + b'.' + mac,
 'expired': head + b'.' + b64(b'{"sub":"fuzz","exp":1}') + b'.' + mac,
 'malformed': b'eyJ!!!.e30.e30',
 'crit': b64(b'{"alg":"HS256","kid":"hs","crit":["b64"]}') + b'.' + claims + b'.' + mac,
}
for name, token in jwt_seeds.items():
    write('jwt_token', name, token)
