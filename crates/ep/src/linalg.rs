//! Small dense symmetric matrices (row-major `d × d`, d of a few units): Cholesky, SPD inverse
//! and log-determinant, the cyclic Jacobi eigendecomposition, and the positive-definite repair.

/// The lower Cholesky factor of `a`, or `None` if `a` is not (numerically) positive definite.
pub fn cholesky(a: &[f64], d: usize) -> Option<Vec<f64>> {
    let mut l = vec![0.0; d * d];
    for i in 0..d {
        for j in 0..=i {
            let s: f64 = (0..j).map(|k| l[i * d + k] * l[j * d + k]).sum();
            if i == j {
                let v = a[i * d + i] - s;
                if !(v > 0.0 && v.is_finite()) {
                    return None;
                }
                l[i * d + i] = v.sqrt();
            } else {
                l[i * d + j] = (a[i * d + j] - s) / l[j * d + j];
            }
        }
    }
    Some(l)
}

/// ln det of a positive-definite `a`.
pub fn ln_det_spd(a: &[f64], d: usize) -> Option<f64> {
    cholesky(a, d).map(|l| (0..d).map(|i| 2.0 * l[i * d + i].ln()).sum())
}

/// The inverse of a positive-definite `a`.
pub fn inverse_spd(a: &[f64], d: usize) -> Option<Vec<f64>> {
    let l = cholesky(a, d)?;
    let mut inv = vec![0.0; d * d];
    for col in 0..d {
        // Solve L y = e_col, then Lᵀ x = y.
        let mut y = vec![0.0; d];
        for i in 0..d {
            let rhs = if i == col { 1.0 } else { 0.0 };
            y[i] = (rhs - (0..i).map(|k| l[i * d + k] * y[k]).sum::<f64>()) / l[i * d + i];
        }
        for i in (0..d).rev() {
            let x = (y[i] - (i + 1..d).map(|k| l[k * d + i] * inv[k * d + col]).sum::<f64>()) / l[i * d + i];
            inv[i * d + col] = x;
        }
    }
    Some(inv)
}

/// `a v` for a `d × d` matrix.
pub fn mat_vec(a: &[f64], v: &[f64], d: usize) -> Vec<f64> {
    (0..d).map(|i| (0..d).map(|j| a[i * d + j] * v[j]).sum()).collect()
}

/// Eigenvalues and eigenvectors (columns of the returned row-major matrix) of a symmetric `a`,
/// by cyclic Jacobi rotations until the off-diagonal mass is below 1e-14 of the total.
pub fn symmetric_eigen(a: &[f64], d: usize) -> (Vec<f64>, Vec<f64>) {
    let mut m = a.to_vec();
    let mut v = vec![0.0; d * d];
    (0..d).for_each(|i| v[i * d + i] = 1.0);
    let total: f64 = m.iter().map(|x| x * x).sum::<f64>().max(f64::MIN_POSITIVE);
    for _sweep in 0..100 {
        let off: f64 = (0..d)
            .flat_map(|i| (0..d).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i * d + j].powi(2))
            .sum();
        if off <= 1e-28 * total {
            break;
        }
        for p in 0..d {
            for q in p + 1..d {
                let apq = m[p * d + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (m[q * d + q] - m[p * d + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (c, s) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                for k in 0..d {
                    let (mkp, mkq) = (m[k * d + p], m[k * d + q]);
                    m[k * d + p] = c * mkp - s * mkq;
                    m[k * d + q] = s * mkp + c * mkq;
                }
                for k in 0..d {
                    let (mpk, mqk) = (m[p * d + k], m[q * d + k]);
                    m[p * d + k] = c * mpk - s * mqk;
                    m[q * d + k] = s * mpk + c * mqk;
                }
                for k in 0..d {
                    let (vkp, vkq) = (v[k * d + p], v[k * d + q]);
                    v[k * d + p] = c * vkp - s * vkq;
                    v[k * d + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    ((0..d).map(|i| m[i * d + i]).collect(), v)
}

/// The positive-definite repair of a noisy symmetric matrix (post-processing, no privacy cost):
/// symmetrize, then raise every eigenvalue below `floor` to `floor`.
pub fn repair_pd(a: &[f64], d: usize, floor: f64) -> Vec<f64> {
    let sym: Vec<f64> = (0..d * d).map(|i| 0.5 * (a[i] + a[(i % d) * d + i / d])).collect();
    let (values, vectors) = symmetric_eigen(&sym, d);
    let values: Vec<f64> = values.iter().map(|x| x.max(floor)).collect();
    (0..d * d)
        .map(|idx| {
            let (i, j) = (idx / d, idx % d);
            (0..d).map(|k| vectors[i * d + k] * values[k] * vectors[j * d + k]).sum()
        })
        .collect()
}
