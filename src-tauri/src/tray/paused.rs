//! The tray icon's paused look: the app's icon in grey and faded, with a
//! pause badge (two white bars on an amber disc) in its lower right
//! corner, so a glance at the panel says that every server and bridge is
//! told no folders. It is drawn from the app's own icon when sharing is
//! paused, not kept as a second file, so the two can never drift apart.
//!
//! Not here: when the icon changes (`tray::refresh`) or what pausing does
//! (the core).

/// The badge's disc: amber, the warning colour the window uses for a pause.
const BADGE: [u8; 3] = [0xb2, 0x6a, 0x00];
/// The bars and the disc's rim.
const WHITE: [u8; 3] = [0xff, 0xff, 0xff];
/// How much of the icon's opacity is kept under the badge.
const FADE: f32 = 0.55;

/// `rgba` (`width` × `height`, 4 bytes a pixel) in its paused look.
pub(crate) fn paused_look(rgba: &[u8], width: u32, height: u32) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut out = Vec::with_capacity(rgba.len());
    for px in rgba.chunks_exact(4) {
        // Rec. 709 luma, lightened a little so the grey reads as "off".
        let luma =
            0.2126 * f32::from(px[0]) + 0.7152 * f32::from(px[1]) + 0.0722 * f32::from(px[2]);
        let grey = (luma * 0.7 + 255.0 * 0.3).round().clamp(0.0, 255.0) as u8;
        let alpha = (f32::from(px[3]) * FADE).round() as u8;
        out.extend_from_slice(&[grey, grey, grey, alpha]);
    }
    // The badge: a disc 46% of the icon across, in the lower right corner,
    // with a white rim and two white bars.
    let side = w.min(h) as f32;
    let radius = side * 0.23;
    let rim = (side * 0.03).max(1.0);
    let (cx, cy) = (w as f32 - radius - 0.5, h as f32 - radius - 0.5);
    let bar_w = radius * 0.28;
    let bar_h = radius * 1.0;
    let gap = radius * 0.18;
    for y in 0..h {
        for x in 0..w {
            let (fx, fy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let d = (fx * fx + fy * fy).sqrt();
            if d > radius {
                continue;
            }
            let in_bar = fy.abs() <= bar_h / 2.0 && fx.abs() >= gap && fx.abs() <= gap + bar_w;
            let colour = if d > radius - rim || in_bar {
                WHITE
            } else {
                BADGE
            };
            let i = (y * w + x) * 4;
            if let Some(p) = out.get_mut(i..i + 4) {
                p.copy_from_slice(&[colour[0], colour[1], colour[2], 0xff]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64 × 64 icon of one opaque green.
    fn green() -> Vec<u8> {
        [0x2f, 0x8f, 0x5b, 0xff].repeat(64 * 64)
    }

    fn at(rgba: &[u8], x: usize, y: usize) -> [u8; 4] {
        let i = (y * 64 + x) * 4;
        [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
    }

    #[test]
    fn the_icon_is_grey_and_faded_away_from_the_badge() {
        let paused = paused_look(&green(), 64, 64);
        assert_eq!(paused.len(), 64 * 64 * 4);
        let [r, g, b, a] = at(&paused, 5, 5);
        assert!(r == g && g == b, "grey: {r} {g} {b}");
        assert!(a < 0xff, "faded: {a}");
    }

    #[test]
    fn the_badge_is_an_amber_disc_with_two_white_bars_in_the_lower_right() {
        let paused = paused_look(&green(), 64, 64);
        // The disc's centre lies between the bars.
        let centre = at(&paused, 49, 49);
        assert_eq!(centre, [BADGE[0], BADGE[1], BADGE[2], 0xff]);
        // Each bar lies a little left and right of the centre.
        let left = at(&paused, 45, 49);
        let right = at(&paused, 53, 49);
        assert_eq!(left, [0xff, 0xff, 0xff, 0xff], "left bar");
        assert_eq!(right, [0xff, 0xff, 0xff, 0xff], "right bar");
        // The upper left corner has no badge.
        assert_ne!(at(&paused, 10, 10)[3], 0xff);
    }

    #[test]
    fn an_icon_of_no_pixels_stays_empty() {
        assert!(paused_look(&[], 0, 0).is_empty());
    }
}
