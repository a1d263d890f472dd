//! The tray icons, drawn in code: an ink drop on a rounded square whose colour says the
//! state (blue: all well; grey: Ollama not available; red: notes failed). Drawing them
//! keeps them in the binary with no image decoder.

use super::menu::TrayIcon;

/// ARGB32 pixels, row by row, network byte order (what StatusNotifierItem wants).
pub fn pixels(icon: TrayIcon, size: u32) -> Vec<u8> {
    let background: [u8; 3] = match icon {
        TrayIcon::Normal => [0x2f, 0x4b, 0x7c],
        TrayIcon::ProviderDown => [0x7a, 0x7f, 0x88],
        TrayIcon::FailedNotes => [0xb0, 0x3a, 0x3a],
    };
    let s = size as f32;
    let mut data = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside_square = rounded_square(px / s, py / s);
            let inside_drop = drop(px / s, py / s);
            let (alpha, rgb) = if inside_drop {
                (255, [0xf4, 0xf1, 0xea])
            } else if inside_square {
                (255, background)
            } else {
                (0, [0, 0, 0])
            };
            data.extend_from_slice(&[alpha, rgb[0], rgb[1], rgb[2]]);
        }
    }
    data
}

/// A square from 6% to 94% with corners of radius 22%.
fn rounded_square(x: f32, y: f32) -> bool {
    let (lo, hi, r) = (0.06, 0.94, 0.22);
    if !(lo..=hi).contains(&x) || !(lo..=hi).contains(&y) {
        return false;
    }
    let cx = x.clamp(lo + r, hi - r);
    let cy = y.clamp(lo + r, hi - r);
    (x - cx).powi(2) + (y - cy).powi(2) <= r * r
}

/// A drop: a circle at the bottom and a point at the top.
fn drop(x: f32, y: f32) -> bool {
    let (cx, cy, r) = (0.5, 0.6, 0.2);
    let in_circle = (x - cx).powi(2) + (y - cy).powi(2) <= r * r;
    // The point: between the tip (0.5, 0.2) and the circle's widest row.
    let in_point = (0.2..=cy).contains(&y) && (x - cx).abs() <= (y - 0.2) / (cy - 0.2) * r;
    in_circle || in_point
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_has_its_own_full_size_icon() {
        let icons: Vec<Vec<u8>> = [
            TrayIcon::Normal,
            TrayIcon::ProviderDown,
            TrayIcon::FailedNotes,
        ]
        .into_iter()
        .map(|i| pixels(i, 32))
        .collect();
        for icon in &icons {
            assert_eq!(icon.len(), 32 * 32 * 4);
            assert!(icon.chunks(4).any(|p| p[0] == 0), "transparent corners");
            assert!(
                icon.chunks(4).any(|p| p[1..] == [0xf4, 0xf1, 0xea]),
                "the drop"
            );
        }
        assert_ne!(icons[0], icons[1]);
        assert_ne!(icons[1], icons[2]);
    }
}
