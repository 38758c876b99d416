# Generates double-precision reference values (double-double) with mpmath.
import mpmath as mp, random, struct
mp.mp.prec = 200
random.seed(7)
def dd(v):
    hi = float(v)
    lo = float(v - mp.mpf(hi))
    return hi, lo
def rnd(lo, hi, n):
    return [random.uniform(lo, hi) for _ in range(n)]
def logu(lo, hi, n, neg=False):
    out=[]
    for _ in range(n):
        v = 10**random.uniform(lo, hi)
        out.append(-v if neg and random.random()<0.5 else v)
    return out
F = {
 'exp': (lambda x: mp.exp(x), rnd(-700,700,300)+rnd(-1,1,100)),
 'exp2': (lambda x: mp.power(2,x), rnd(-1000,1000,300)+rnd(-1,1,100)),
 'exp10': (lambda x: mp.power(10,x), rnd(-300,300,300)),
 'expm1': (lambda x: mp.expm1(x), rnd(-40,700,200)+logu(-300,0,200,True)),
 'log': (lambda x: mp.log(x), logu(-300,300,300)+rnd(0.5,2,100)),
 'log2': (lambda x: mp.log(x,2), logu(-300,300,300)+rnd(0.5,2,100)),
 'log10': (lambda x: mp.log10(x), logu(-300,300,300)+rnd(0.5,2,100)),
 'log1p': (lambda x: mp.log1p(x), logu(-300,300,300)+rnd(-0.9,1,100)),
 'sin': (lambda x: mp.sin(x), rnd(-10,10,200)+logu(-5,22,200,True)),
 'cos': (lambda x: mp.cos(x), rnd(-10,10,200)+logu(-5,22,200,True)),
 'tan': (lambda x: mp.tan(x), rnd(-10,10,200)+logu(-5,22,200,True)),
 'asin': (lambda x: mp.asin(x), rnd(-1,1,300)),
 'acos': (lambda x: mp.acos(x), rnd(-1,1,300)),
 'atan': (lambda x: mp.atan(x), rnd(-10,10,200)+logu(-100,100,200,True)),
 'sinh': (lambda x: mp.sinh(x), rnd(-700,700,200)+rnd(-1,1,100)),
 'cosh': (lambda x: mp.cosh(x), rnd(-700,700,200)+rnd(-1,1,100)),
 'tanh': (lambda x: mp.tanh(x), rnd(-20,20,300)),
 'erf': (lambda x: mp.erf(x), rnd(-6,6,300)),
 'erfc': (lambda x: mp.erfc(x), rnd(-6,26,300)),
 'cbrt': (lambda x: mp.cbrt(x) if x>=0 else -mp.cbrt(-x), logu(-300,300,300,True)),
 'sinpi': (lambda x: mp.sinpi(x), rnd(-100,100,300)),
 'cospi': (lambda x: mp.cospi(x), rnd(-100,100,300)),
 'tgamma': (lambda x: mp.gamma(x), rnd(0.1,170,200)+rnd(-20,-0.1,100)),
 'asinh': (lambda x: mp.asinh(x), logu(-10,10,300,True)),
 'acosh': (lambda x: mp.acosh(x), rnd(1,1000,300)),
 'atanh': (lambda x: mp.atanh(x), rnd(-0.999,0.999,300)),
 'tanpi': (lambda x: mp.sinpi(x)/mp.cospi(x), rnd(-100,100,300)),
 'asinpi': (lambda x: mp.asin(x)/mp.pi, rnd(-1,1,300)),
 'acospi': (lambda x: mp.acos(x)/mp.pi, rnd(-1,1,300)),
 'atanpi': (lambda x: mp.atan(x)/mp.pi, rnd(-10,10,200)+logu(-100,100,100,True)),
 'sqrt': (lambda x: mp.sqrt(x), logu(-300,300,300)),
 'rsqrt': (lambda x: 1/mp.sqrt(x), logu(-300,300,300)),
}
F2 = {
 'pow': (lambda x,y: mp.power(x,y), [(random.uniform(0,100), random.uniform(-100,100)) for _ in range(300)]),
 'atan2': (lambda y,x: mp.atan2(y,x), [(random.uniform(-10,10), random.uniform(-10,10)) for _ in range(300)]),
 'hypot': (lambda x,y: mp.sqrt(mp.mpf(x)**2+mp.mpf(y)**2), [(random.uniform(-1e100,1e100), random.uniform(-1e100,1e100)) for _ in range(300)]),
 'atan2pi': (lambda y,x: mp.atan2(y,x)/mp.pi, [(random.uniform(-10,10), random.uniform(-10,10)) for _ in range(300)]),
 'powr': (lambda x,y: mp.power(x,y), [(random.uniform(0,100), random.uniform(-100,100)) for _ in range(300)]),
 'pown': (lambda x,y: mp.power(x,int(y)), [(random.uniform(-10,10), float(random.randint(-200,200))) for _ in range(300)]),
 'rootn': (lambda x,y: mp.root(abs(x),int(y)) * (-1 if x<0 else 1), [(random.uniform(-1e6,1e6), float(random.choice([1,3,5,7,-3,-5]))) for _ in range(150)] + [(random.uniform(0,1e6), float(random.choice([2,4,6,-2,-4]))) for _ in range(150)]
   # The ends of the range, where 1/n's rounding error is multiplied by |ln x| ≈ 710.
   + [(s * x, float(n)) for x in (1.7976931348623157e308, 1e300, 2.2250738585072014e-308, 5e-324) for s in (1, -1) for n in (3, 5, 6, 7, 9, 10, 11, 100, -3, -5, -6, -7, -9, -100) if s > 0 or n % 2]),
}
import os
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'f64_reference.txt'),'w') as f:
    f.write('# name x [y] hi lo: mpmath (200-bit) values of double functions as double-double, hex bits\n')
    for name,(fn,xs) in F.items():
        for x in xs:
            x = float(x)
            try:
                v = fn(mp.mpf(x))
            except Exception:
                continue
            if not mp.isfinite(v) or abs(v) > 1.7e308 or (v != 0 and abs(v) < 2.3e-308): continue
            hi,lo = dd(v)
            f.write('%s %016x %016x %016x\n' % (name, struct.unpack('<Q',struct.pack('<d',x))[0], struct.unpack('<Q',struct.pack('<d',hi))[0], struct.unpack('<Q',struct.pack('<d',lo))[0]))
    for name,(fn,xs) in F2.items():
        for x,y in xs:
            v = fn(mp.mpf(x), mp.mpf(y))
            if not mp.isfinite(v) or abs(v) > 1.7e308 or (v != 0 and abs(v) < 2.3e-308): continue
            hi,lo = dd(v)
            q=lambda a: struct.unpack('<Q',struct.pack('<d',a))[0]
            f.write('%s %016x %016x %016x %016x\n' % (name, q(x), q(y), q(hi), q(lo)))
