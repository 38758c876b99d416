#!/usr/bin/env python3
"""Application-style kernels through the ICD loader: the patterns of
outside OpenCL suites (PolyBench- and Rodinia-style guarded loops, sparse
and irregular access, private arrays, float4 data, integer hashing,
fp64 math, local-memory tiles) timed on every platform installed.

    python3 benches/app_kernels.py [--only a,b] [--platforms vecl,intel,portable]

For each kernel and platform: process CPU time and wall time per launch
(medians of five rounds of ten launches after three warm-up launches),
and where the kernel has a reference, the largest difference from it
(numpy, after one launch on fresh buffers). CPU time is the measure on a
shared machine: every platform's threads are counted. `OCL_ICD_VENDORS`
chooses the drivers ocl-icd loads. docs/measurements.md has the runs.
"""
import argparse, sys, time, warnings

import numpy as np
import pyopencl as cl

warnings.filterwarnings('ignore')
mf = cl.mem_flags
N = 512
rng = np.random.default_rng(1)
def f32(*s): return rng.random(s, dtype=np.float32)
K = {}
# name: (source, global, local, args builder, ref)
A = f32(N, N); B = f32(N, N); C = f32(N, N)
K['gemm_naive'] = ("""
kernel void k(global const float* A, global const float* B, global float* C, int n, float alpha, float beta) {
  int i = get_global_id(1), j = get_global_id(0);
  if (i < n && j < n) { float s = 0; for (int k = 0; k < n; k++) s += A[i*n+k]*B[k*n+j]; C[i*n+j] = alpha*s + beta*C[i*n+j]; }
}""", (N, N), None, lambda: [A, B, C.copy(), np.int32(N), np.float32(1.5), np.float32(0.5)], 2, lambda: 1.5*(A@B)+0.5*C)
Ad = A.astype(np.float64); Bd = B.astype(np.float64); Cd = C.astype(np.float64)
K['dgemm_naive'] = ("""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global const double* A, global const double* B, global double* C, int n, double alpha, double beta) {
  int i = get_global_id(1), j = get_global_id(0);
  if (i < n && j < n) { double s = 0; for (int k = 0; k < n; k++) s += A[i*n+k]*B[k*n+j]; C[i*n+j] = alpha*s + beta*C[i*n+j]; }
}""", (N, N), None, lambda: [Ad, Bd, Cd.copy(), np.int32(N), np.float64(1.5), np.float64(0.5)], 2, lambda: 1.5*(Ad@Bd)+0.5*Cd)
M = 4096
Am = f32(M, M); x = f32(M)
K['atax_row'] = ("""
kernel void k(global const float* A, global const float* x, global float* y, int n) {
  int i = get_global_id(0);
  if (i < n) { float s = 0; for (int j = 0; j < n; j++) s += A[i*n+j]*x[j]; y[i] = s; }
}""", (M,), None, lambda: [Am, x, np.zeros(M, np.float32), np.int32(M)], 2, lambda: Am@x)
K['bicg_col'] = ("""
kernel void k(global const float* A, global const float* r, global float* s, int n) {
  int j = get_global_id(0);
  if (j < n) { float t = 0; for (int i = 0; i < n; i++) t += r[i]*A[i*n+j]; s[j] = t; }
}""", (M,), None, lambda: [Am, x, np.zeros(M, np.float32), np.int32(M)], 2, lambda: x@Am)
H = 2048
T = f32(H, H); P = f32(H, H)
K['hotspot'] = ("""
kernel void k(global const float* t, global const float* p, global float* o, int r, int c, float cap, float rx, float ry, float rz, float amb) {
  int col = get_global_id(0), row = get_global_id(1);
  if (row >= r || col >= c) return;
  int i = row*c + col;
  float n = row > 0 ? t[i-c] : t[i];
  float s = row < r-1 ? t[i+c] : t[i];
  float e = col < c-1 ? t[i+1] : t[i];
  float w = col > 0 ? t[i-1] : t[i];
  o[i] = t[i] + cap * (p[i] + (s + n - 2.0f*t[i]) * ry + (e + w - 2.0f*t[i]) * rx + (amb - t[i]) * rz);
}""", (H, H), (16, 16), lambda: [T, P, np.zeros((H, H), np.float32), np.int32(H), np.int32(H), np.float32(0.5), np.float32(0.1), np.float32(0.1), np.float32(0.01), np.float32(80)], 2, None)
NP = 1 << 17; NF = 16; NC = 8
pts = f32(NP, NF); cent = f32(NC, NF)
K['kmeans'] = ("""
kernel void k(global const float* pts, global const float* cent, global int* member, int np, int nc, int nf) {
  int p = get_global_id(0);
  if (p >= np) return;
  int best = 0; float bd = 3.4e38f;
  for (int c = 0; c < nc; c++) { float d = 0; for (int f = 0; f < nf; f++) { float v = pts[p*nf+f] - cent[c*nf+f]; d += v*v; } if (d < bd) { bd = d; best = c; } }
  member[p] = best;
}""", (NP,), None, lambda: [pts, cent, np.zeros(NP, np.int32), np.int32(NP), np.int32(NC), np.int32(NF)], 2, lambda: np.argmin(((pts[:, None, :]-cent[None])**2).sum(-1), 1).astype(np.int32))
R = 1 << 16; nnz_row = 32
cols = rng.integers(0, R, (R, nnz_row)).astype(np.int32).ravel(); vals = f32(R*nnz_row); rp = (np.arange(R+1)*nnz_row).astype(np.int32); xv = f32(R)
K['spmv_csr'] = ("""
kernel void k(global const int* rp, global const int* ci, global const float* v, global const float* x, global float* y, int n) {
  int r = get_global_id(0);
  if (r < n) { float s = 0; for (int j = rp[r]; j < rp[r+1]; j++) s += v[j]*x[ci[j]]; y[r] = s; }
}""", (R,), None, lambda: [rp, cols, vals, xv, np.zeros(R, np.float32), np.int32(R)], 4, lambda: (vals.reshape(R, nnz_row)*xv[cols.reshape(R, nnz_row)]).sum(1))
K['conv3x3'] = ("""
kernel void k(global const float* A, global float* B, int ni, int nj) {
  int j = get_global_id(0), i = get_global_id(1);
  if (i > 0 && i < ni-1 && j > 0 && j < nj-1)
    B[i*nj+j] = 0.2f*A[(i-1)*nj+j-1] + 0.5f*A[(i-1)*nj+j] - 0.8f*A[(i-1)*nj+j+1] - 0.3f*A[i*nj+j-1] + 0.6f*A[i*nj+j] - 0.9f*A[i*nj+j+1] + 0.4f*A[(i+1)*nj+j-1] + 0.7f*A[(i+1)*nj+j] + 0.1f*A[(i+1)*nj+j+1];
}""", (H, H), None, lambda: [T, np.zeros((H, H), np.float32), np.int32(H), np.int32(H)], 1, None)
D = 1 << 22
xd = rng.random(D); yd = rng.random(D)
K['daxpy_exp'] = ("""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void k(global const double* x, global double* y, double a) {
  int i = get_global_id(0); y[i] = a*exp(x[i]) + sqrt(y[i]);
}""", (D,), None, lambda: [xd, yd.copy(), np.float64(0.5)], 1, lambda: 0.5*np.exp(xd)+np.sqrt(yd))
S = 1 << 20
sv = f32(S)
K['srad_like'] = ("""
kernel void k(global const float* J, global float* c, int cols, int rows, float q0) {
  int i = get_global_id(0); if (i >= cols*rows) return;
  int r = i / cols, col = i % cols;
  float Jc = J[i];
  float dN = J[(r > 0 ? r-1 : 0)*cols + col] - Jc;
  float dS = J[(r < rows-1 ? r+1 : r)*cols + col] - Jc;
  float dW = J[r*cols + (col > 0 ? col-1 : 0)] - Jc;
  float dE = J[r*cols + (col < cols-1 ? col+1 : col)] - Jc;
  float G2 = (dN*dN + dS*dS + dW*dW + dE*dE) / (Jc*Jc);
  float L = (dN + dS + dW + dE) / Jc;
  float num = 0.5f*G2 - (1.0f/16.0f)*(L*L);
  float den = 1 + 0.25f*L;
  float qsqr = num/(den*den);
  den = (qsqr-q0) / (q0 * (1+q0));
  float cc = 1.0f / (1.0f+den);
  c[i] = cc < 0 ? 0 : (cc > 1 ? 1 : cc);
}""", (S,), (256,), lambda: [sv + 0.5, np.zeros(S, np.float32), np.int32(1024), np.int32(1024), np.float32(0.3)], 1, None)

NK = 512; NX = 1 << 16
kx = f32(NK); ky = f32(NK); kz = f32(NK); phi = f32(NK); xs = f32(NX); ys = f32(NX); zs = f32(NX)
K['mriq'] = ("""
kernel void k(int numK, global const float* kx, global const float* ky, global const float* kz, global const float* phi,
              global const float* x, global const float* y, global const float* z, global float* Qr, global float* Qi) {
  int t = get_global_id(0);
  float sx = x[t], sy = y[t], sz = z[t], qr = 0, qi = 0;
  for (int k = 0; k < numK; k++) {
    float e = 6.2831853f * (kx[k]*sx + ky[k]*sy + kz[k]*sz);
    qr += phi[k] * cos(e); qi += phi[k] * sin(e);
  }
  Qr[t] = qr; Qi[t] = qi;
}""", (NX,), (256,), lambda: [np.int32(NK), kx, ky, kz, phi, xs, ys, zs, np.zeros(NX, np.float32), np.zeros(NX, np.float32)], 8, None)
S3 = 256
g3 = f32(S3, S3, S3)
K['stencil3d'] = ("""
kernel void k(global const float* in, global float* out, int nx, int ny, int nz, float c0, float c1) {
  int i = get_global_id(0), j = get_global_id(1);
  if (i < 1 || j < 1 || i >= nx-1 || j >= ny-1) return;
  for (int kk = 1; kk < nz-1; kk++) {
    int idx = (kk*ny + j)*nx + i;
    out[idx] = c1*(in[idx-1] + in[idx+1] + in[idx-nx] + in[idx+nx] + in[idx-nx*ny] + in[idx+nx*ny]) - c0*in[idx];
  }
}""", (S3, S3), (64, 4), lambda: [g3, np.zeros_like(g3), np.int32(S3), np.int32(S3), np.int32(S3), np.float32(0.5), np.float32(0.1)], 1, None)
CN = 2048; CM = 2048
cdat = f32(CN, CM)
K['cov_mean'] = ("""
kernel void k(global float* mean, global const float* data, float fn, int m, int n) {
  int j = get_global_id(0);
  if (j < m) { mean[j] = 0.0f; for (int i = 0; i < n; i++) mean[j] += data[i*m + j]; mean[j] /= fn; }
}""", (CM,), (256,), lambda: [np.zeros(CM, np.float32), cdat, np.float32(CN), np.int32(CM), np.int32(CN)], 0, lambda: cdat.mean(0))
PR = 100; PC = 1 << 16
pw = rng.integers(0, 10, (PR, PC)).astype(np.int32)
K['pathfinder'] = ("""
#define BS 256
#define IN_RANGE(x, min, max) ((x)>=(min) && (x)<=(max))
#define MIN(a, b) ((a)<=(b) ? (a) : (b))
kernel void k(int iteration, global int* gpuWall, global int* gpuSrc, global int* gpuResults, int cols, int rows, int startStep, int border, local int* prev, local int* result) {
  int bx = get_group_id(0), tx = get_local_id(0);
  int small_block_cols = BS - (iteration*2);
  int blkX = (small_block_cols*bx) - border;
  int blkXmax = blkX+BS-1;
  int xidx = blkX+tx;
  int validXmin = (blkX < 0) ? -blkX : 0;
  int validXmax = (blkXmax > cols-1) ? BS-1-(blkXmax-cols+1) : BS-1;
  int W = tx-1, E = tx+1;
  W = (W < validXmin) ? validXmin : W;
  E = (E > validXmax) ? validXmax : E;
  bool isValid = IN_RANGE(tx, validXmin, validXmax);
  if (IN_RANGE(xidx, 0, cols-1)) prev[tx] = gpuSrc[xidx];
  barrier(CLK_LOCAL_MEM_FENCE);
  bool computed;
  for (int i = 0; i < iteration; i++) {
    computed = false;
    if (IN_RANGE(tx, i+1, BS-i-2) && isValid) {
      computed = true;
      int left = prev[W], up = prev[tx], right = prev[E];
      int shortest = MIN(left, up); shortest = MIN(shortest, right);
      int index = cols*(startStep+i)+xidx;
      result[tx] = shortest + gpuWall[index];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i == iteration-1) break;
    if (computed) prev[tx] = result[tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (computed) gpuResults[xidx] = result[tx];
}""", (((PC + 235) // 236) * 256,), (256,), lambda: [np.int32(10), pw, pw[0].copy(), np.zeros(PC, np.int32), np.int32(PC), np.int32(PR), np.int32(0), np.int32(10), cl.LocalMemory(1024), cl.LocalMemory(1024)], 3, None)
NN = 1 << 16; NB = 32
npos = f32(NN, 4); nbr = rng.integers(0, NN, (NN, NB)).astype(np.int32)
K['md_nbr'] = ("""
kernel void k(global float4* force, global const float4* pos, global const int* nbr, int maxn, int n, float cutsq, float lj1, float lj2) {
  int i = get_global_id(0);
  if (i >= n) return;
  float4 ip = pos[i]; float4 f = (float4)(0.0f);
  for (int j = 0; j < maxn; j++) {
    int jidx = nbr[j*n + i];
    float4 jp = pos[jidx];
    float dx = ip.x-jp.x, dy = ip.y-jp.y, dz = ip.z-jp.z;
    float r2 = dx*dx + dy*dy + dz*dz;
    if (r2 < cutsq) { float r2i = 1.0f/r2; float r6i = r2i*r2i*r2i; float fc = r2i*r6i*(lj1*r6i - lj2); f.x += dx*fc; f.y += dy*fc; f.z += dz*fc; }
  }
  force[i] = f;
}""", (NN,), (128,), lambda: [np.zeros((NN, 4), np.float32), npos, nbr.T.copy(), np.int32(NB), np.int32(NN), np.float32(0.3), np.float32(1.5), np.float32(2.0)], 0, None)
NE = 1 << 20
ev = f32(NE) * 4 + 0.1
K['s3d_exp'] = ("""
kernel void k(global const float* T, global float* out) {
  int i = get_global_id(0);
  float t = T[i], lt = log(t), it = 1.0f/t;
  float a = exp(3.2f*lt - 1.5f*it), b = exp(-0.7f*lt + 2.1f*it), c = exp(1.1f - 0.3f*lt);
  out[i] = a*b + c*sqrt(t) + pow(t, 0.75f);
}""", (NE,), (256,), lambda: [ev, np.zeros(NE, np.float32)], 1, None)
K["gemm_noguard"] = (K["gemm_naive"][0].replace("if (i < n && j < n) {", "{"),) + K["gemm_naive"][1:]
BN = 1 << 18; BE = 8
bstart = (np.arange(BN) * BE).astype(np.int32); bedges = rng.integers(0, BN, BN * BE).astype(np.int32)
bmask = (rng.random(BN) < 0.3).astype(np.int8); bvis = (rng.random(BN) < 0.5).astype(np.int8); bcost = rng.integers(0, 100, BN).astype(np.int32)
K['bfs'] = ("""
kernel void k(global const int* starting, global const int* no_of_edges, global const int* edges, global char* mask, global char* updating, global char* visited, global int* cost, int n) {
  int tid = get_global_id(0);
  if (tid < n && mask[tid]) {
    mask[tid] = 0;
    for (int i = starting[tid]; i < no_of_edges[tid] + starting[tid]; i++) {
      int id = edges[i];
      if (!visited[id]) { cost[id] = cost[tid] + 1; updating[id] = 1; }
    }
  }
}""", (BN,), (256,), lambda: [bstart, np.full(BN, BE, np.int32), bedges, bmask.copy(), np.zeros(BN, np.int8), bvis, bcost.copy(), np.int32(BN)], 6, None)
HN = 1 << 22
hdat = rng.integers(0, 256, HN).astype(np.int32)
K['hist_global'] = ("""
kernel void k(global const int* d, global int* h, int n) {
  int i = get_global_id(0);
  if (i < n) atomic_inc(&h[d[i] & 255]);
}""", (HN,), (256,), lambda: [hdat, np.zeros(256, np.int32), np.int32(HN)], 1, None)
NB2 = 1 << 16
bod = f32(NB2, 4)
K['nbody_naive'] = ("""
kernel void k(global const float4* p, global float4* a, int n, float eps) {
  int i = get_global_id(0);
  float4 pi = p[i]; float3 acc = (float3)(0.0f);
  for (int j = 0; j < n; j++) {
    float4 pj = p[j];
    float3 r = pj.xyz - pi.xyz;
    float d2 = dot(r, r) + eps;
    float inv = rsqrt(d2); float inv3 = inv*inv*inv;
    acc += r * (pj.w * inv3);
  }
  a[i] = (float4)(acc, 0.0f);
}""", (NB2 // 8,), (256,), lambda: [bod, np.zeros((NB2, 4), np.float32), np.int32(NB2 // 8), np.float32(0.01)], 1, None)
GS = 1 << 24
gx = f32(GS); gy = f32(GS)
K['grid_stride'] = ("""
kernel void k(global const float* x, global float* y, float a, int n) {
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = a * x[i] + y[i];
}""", (1 << 16,), (256,), lambda: [gx, gy.copy(), np.float32(2.0), np.int32(GS)], 1, None)
PN = 1 << 20
pin = f32(PN * 8)
K['private_sort8'] = ("""
kernel void k(global const float* in, global float* out) {
  int g = get_global_id(0);
  float v[8];
  for (int i = 0; i < 8; i++) v[i] = in[g*8+i];
  for (int i = 0; i < 8; i++) for (int j = 0; j < 7 - i; j++) if (v[j] > v[j+1]) { float t = v[j]; v[j] = v[j+1]; v[j+1] = t; }
  float s = 0; for (int i = 0; i < 8; i++) s += v[i] * (float)(i+1);
  out[g] = s;
}""", (PN,), (256,), lambda: [pin, np.zeros(PN, np.float32)], 1, None)
F4 = 1 << 22
f4a = f32(F4, 4); f4b = f32(F4, 4)
K['float4_axpy'] = ("""
kernel void k(global const float4* x, global float4* y, float a) {
  int i = get_global_id(0); float4 v = x[i]; y[i] = a * v + y[i] * v.wzyx;
}""", (F4,), (256,), lambda: [f4a, f4b.copy(), np.float32(1.5)], 1, None)
TN = 2048
tin = f32(TN, TN)
K['transpose_local'] = ("""
#define T 16
kernel void k(global const float* in, global float* out, int w, int h) {
  local float tile[T][T+1];
  int x = get_group_id(0)*T + get_local_id(0), y = get_group_id(1)*T + get_local_id(1);
  if (x < w && y < h) tile[get_local_id(1)][get_local_id(0)] = in[y*w + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1)*T + get_local_id(0); y = get_group_id(0)*T + get_local_id(1);
  if (x < h && y < w) out[y*h + x] = tile[get_local_id(0)][get_local_id(1)];
}""", (TN, TN), (16, 16), lambda: [tin, np.zeros_like(tin), np.int32(TN), np.int32(TN)], 1, lambda: tin.T)
RG = 1 << 22
rgba = rng.integers(0, 256, (RG, 4)).astype(np.uint8)
K['rgba_gray'] = ("""
kernel void k(global const uchar4* in, global uchar4* out, float gain) {
  int i = get_global_id(0);
  float4 p = convert_float4(in[i]);
  float g = dot(p.xyz, (float3)(0.299f, 0.587f, 0.114f)) * gain;
  out[i] = convert_uchar4_sat((float4)(g, g, g, p.w));
}""", (RG,), (256,), lambda: [rgba, np.zeros_like(rgba), np.float32(1.1)], 1, None)
GW = 2048
gray = rng.integers(0, 256, (GW, GW)).astype(np.uint8)
def gray_box_ref():
    g = gray.astype(np.int32); out = g.copy()
    s = sum(g[1 + dy:GW - 1 + dy, 1 + dx:GW - 1 + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    out[1:-1, 1:-1] = s // 9
    return out
K['gray_box3'] = ("""
kernel void k(global const uchar* in, global uchar* out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) { out[y*w + x] = in[y*w + x]; return; }
  int s = 0;
  for (int dy = -1; dy <= 1; dy++) for (int dx = -1; dx <= 1; dx++) s += in[(y + dy)*w + x + dx];
  out[y*w + x] = (uchar)(s / 9);
}""", (GW, GW), None, lambda: [gray, np.zeros_like(gray), np.int32(GW), np.int32(GW)], 1, gray_box_ref)
RN = 1 << 22
K['rng_hash'] = ("""
kernel void k(global uint* out, uint seed) {
  uint x = get_global_id(0) ^ seed, acc = 0;
  for (int r = 0; r < 16; r++) {
    x ^= x << 13; x ^= x >> 17; x ^= x << 5;
    uint h = x * 0x9E3779B1u; h = rotate(h, 7u) ^ (h >> 3);
    acc += popcount(h) + (h % 7u);
  }
  out[get_global_id(0)] = acc;
}""", (RN,), (256,), lambda: [np.zeros(RN, np.uint32), np.uint32(1234)], 0, None)
sbox = rng.integers(0, 2**31, 256).astype(np.uint32)
AN = 1 << 20
adat = rng.integers(0, 2**31, (AN, 4)).astype(np.uint32)
K['aes_like'] = ("""
kernel void k(global const uint4* in, global uint4* out, constant uint* T0) {
  int i = get_global_id(0); uint4 s = in[i];
  for (int r = 0; r < 10; r++) {
    uint4 t;
    t.x = T0[s.x & 255] ^ rotate(T0[(s.y >> 8) & 255], 8u) ^ rotate(T0[(s.z >> 16) & 255], 16u) ^ rotate(T0[s.w >> 24], 24u);
    t.y = T0[s.y & 255] ^ rotate(T0[(s.z >> 8) & 255], 8u) ^ rotate(T0[(s.w >> 16) & 255], 16u) ^ rotate(T0[s.x >> 24], 24u);
    t.z = T0[s.z & 255] ^ rotate(T0[(s.w >> 8) & 255], 8u) ^ rotate(T0[(s.x >> 16) & 255], 16u) ^ rotate(T0[s.y >> 24], 24u);
    t.w = T0[s.w & 255] ^ rotate(T0[(s.x >> 8) & 255], 8u) ^ rotate(T0[(s.y >> 16) & 255], 16u) ^ rotate(T0[s.z >> 24], 24u);
    s = t ^ (uint4)(r);
  }
  out[i] = s;
}""", (AN,), (256,), lambda: [adat, np.zeros_like(adat), sbox], 1, None)
MN = 1 << 22
m1 = f32(MN) * 4 - 2; m2 = f32(MN) * 4 - 2
K['math_mix'] = ("""
kernel void k(global const float* a, global const float* b, global float* o) {
  int i = get_global_id(0); float x = a[i], y = b[i];
  o[i] = atan2(y, x) + pow(fabs(x) + 0.5f, y) + erf(x) + tanh(y);
}""", (MN,), (256,), lambda: [m1, m2, np.zeros(MN, np.float32)], 2, None)
K['float4_math'] = ("""
kernel void k(global const float4* x, global float4* y, float a) {
  int i = get_global_id(0); float4 v = x[i]; y[i] = exp(v * a) + sin(v) * y[i];
}""", (F4,), (256,), lambda: [f4a, f4b.copy(), np.float32(0.5)], 1, None)
K['float4_mid'] = ("""
kernel void k(global const float4* x, global float4* y, float a) {
  int i = get_global_id(0); float4 v = x[i]; float4 w = y[i];
  float4 r = v;
  for (int t = 0; t < 4; t++) r = r * (a + w) + v * r.yzwx - w;
  y[i] = r;
}""", (F4,), (256,), lambda: [f4a, f4b.copy(), np.float32(0.5)], 1, None)


def buffers(ctx, args):
    return [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
            if isinstance(a, np.ndarray) and a.size > 1 else a for a in args]


def measure(ctx, q, name):
    src, g, l, mk, outi, ref = K[name]
    kern = cl.Program(ctx, src).build().k
    args = mk()
    bufs = buffers(ctx, args)
    kern(q, g, l, *bufs)
    q.finish()
    err = None
    if ref is not None:
        out = np.empty_like(args[outi])
        cl.enqueue_copy(q, out, bufs[outi])
        want = np.asarray(ref(), dtype=np.float64)
        got = out.astype(np.float64).reshape(want.shape)
        err = float(np.max(np.abs(got - want)) / max(1e-30, float(np.max(np.abs(want)))))
    for _ in range(2):
        kern(q, g, l, *bufs)
    q.finish()
    rounds = []
    for _ in range(5):
        c0, w0 = time.process_time(), time.perf_counter()
        for _ in range(10):
            kern(q, g, l, *bufs)
        q.finish()
        rounds.append(((time.process_time() - c0) * 100, (time.perf_counter() - w0) * 100))
    cpu = sorted(r[0] for r in rounds)[2]
    wall = sorted(r[1] for r in rounds)[2]
    return cpu, wall, err


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated kernel names")
    ap.add_argument("--platforms", default="vecl,intel,portable",
                    help="substrings of platform names, in the order to run them")
    a = ap.parse_args()
    names = [n for n in K if not a.only or n in a.only.split(",")]
    wanted = a.platforms.split(",")
    plats = []
    for w in wanted:
        for p in cl.get_platforms():
            if w in p.name.lower() and p not in plats:
                plats.append(p)
    print(f"{'kernel':16} " + " ".join(f"{p.name[:14]:>30}" for p in plats) + "   (CPU / wall ms per launch; max rel. error)")
    for name in names:
        cells = []
        for p in plats:
            ctx = cl.Context(p.get_devices())
            q = cl.CommandQueue(ctx)
            try:
                cpu, wall, err = measure(ctx, q, name)
                e = "" if err is None else f" {err:.0e}"
                cells.append(f"{cpu:8.2f} / {wall:8.2f}{e:>7}")
            except Exception as ex:  # a platform that cannot build or run it
                cells.append(f"{'error: ' + str(ex).splitlines()[0][:22]:>30}")
        print(f"{name:16} " + " ".join(f"{c:>30}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
