//! The signature block `mcpb sign` appends to a bundle, found and read as
//! far as Rootgate can honestly go: whether there is one, and whom its
//! certificate names.
//!
//! `mcpb sign` appends `MCPB_SIG_V1`, the length of a DER PKCS#7 detached
//! signature (four bytes, little-endian), the signature, and
//! `MCPB_SIG_END` to the zip file; what it signs is every byte before the
//! block. This module splits the block off (so the zip is read without
//! it) and reads the signing certificate's subject common name from the
//! PKCS#7 structure with a small bounds-checked DER walk.
//!
//! What it does not do: verify the signature or the certificate's chain.
//! A signed bundle is therefore always `Signed { checked: false }`, and
//! the window and the terminal never call it verified. A block that is
//! cut short or not PKCS#7 is `Invalid`, in words.

use crate::offer::Signature;

const HEADER: &[u8] = b"MCPB_SIG_V1";
const FOOTER: &[u8] = b"MCPB_SIG_END";

/// The bytes the zip is read from (the file without a trailing signature
/// block) and what the block says.
pub fn split(file: &[u8]) -> (&[u8], Signature) {
    let Some(body) = file.strip_suffix(FOOTER) else {
        return (file, Signature::Unsigned);
    };
    let Some(at) = find_last(body, HEADER) else {
        return (
            file,
            Signature::Invalid {
                reason: "the file ends with a signature's end marker but has no signature block"
                    .into(),
            },
        );
    };
    let content = &file[..at];
    let block = &body[at + HEADER.len()..];
    let Some((length, der)) = block.split_first_chunk::<4>() else {
        return (content, cut_short());
    };
    let length = u32::from_le_bytes(*length) as usize;
    if der.len() != length {
        return (content, cut_short());
    }
    let signature = match signer(der) {
        Some(by) => Signature::Signed {
            by: Some(by),
            checked: false,
        },
        None if der.first() == Some(&0x30) => Signature::Signed {
            by: None,
            checked: false,
        },
        None => Signature::Invalid {
            reason: "its signature block does not hold a PKCS#7 signature".into(),
        },
    };
    (content, signature)
}

fn cut_short() -> Signature {
    Signature::Invalid {
        reason: "its signature block is cut short or longer than it says".into(),
    }
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// One DER element: its tag, and its contents.
struct Tlv<'a> {
    tag: u8,
    body: &'a [u8],
}

/// Reads the element at the start of `bytes`, returning it and what
/// follows it; `None` for anything malformed or longer than what is there.
fn tlv(bytes: &[u8]) -> Option<(Tlv<'_>, &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (length, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (digits, rest) = rest.split_at(count);
        let length = digits
            .iter()
            .fold(0usize, |n, d| (n << 8) | usize::from(*d));
        (length, rest)
    };
    if rest.len() < length {
        return None;
    }
    let (body, after) = rest.split_at(length);
    Some((Tlv { tag, body }, after))
}

/// The elements inside a constructed element, in order.
fn children(mut body: &[u8]) -> Vec<Tlv<'_>> {
    let mut out = Vec::new();
    while let Some((child, rest)) = tlv(body) {
        out.push(child);
        body = rest;
    }
    out
}

const SEQUENCE: u8 = 0x30;
const SET: u8 = 0x31;
const CONTEXT_0: u8 = 0xa0;
/// 2.5.4.3, commonName, as DER encodes the identifier.
const COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];

/// The subject common name of the first certificate of a PKCS#7
/// SignedData: ContentInfo → [0] SignedData → [0] certificates →
/// Certificate → tbsCertificate → subject.
fn signer(der: &[u8]) -> Option<String> {
    let (info, _) = tlv(der)?;
    let signed = children(info.body)
        .into_iter()
        .find(|c| c.tag == CONTEXT_0)?;
    let (signed, _) = tlv(signed.body)?;
    let certificates = children(signed.body)
        .into_iter()
        .find(|c| c.tag == CONTEXT_0)?;
    let (certificate, _) = tlv(certificates.body)?;
    let (tbs, _) = tlv(certificate.body)?;
    let fields = children(tbs.body);
    // tbsCertificate: [0] version (optional), serial, signature algorithm,
    // issuer, validity, subject.
    let skip = usize::from(fields.first()?.tag == CONTEXT_0);
    let subject = fields.get(skip + 4).filter(|s| s.tag == SEQUENCE)?;
    children(subject.body)
        .into_iter()
        .filter(|rdn| rdn.tag == SET)
        .flat_map(|rdn| children(rdn.body))
        .find_map(|pair| {
            let parts = children(pair.body);
            let (oid, value) = (parts.first()?, parts.get(1)?);
            (oid.body == COMMON_NAME).then(|| String::from_utf8_lossy(value.body).into_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn element(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        if body.len() < 0x80 {
            out.push(body.len() as u8);
        } else {
            out.push(0x82);
            out.extend((body.len() as u16).to_be_bytes());
        }
        out.extend(body);
        out
    }

    /// A PKCS#7 shell holding one certificate whose subject is `cn`: only
    /// the parts the walk reads, in their places.
    fn pkcs7(cn: &str) -> Vec<u8> {
        let pair = [element(0x06, COMMON_NAME), element(0x0c, cn.as_bytes())].concat();
        let subject = element(SEQUENCE, &element(SET, &element(SEQUENCE, &pair)));
        let tbs = [
            element(CONTEXT_0, &element(0x02, &[2])),
            element(0x02, &[1]),
            element(SEQUENCE, &[]),
            element(SEQUENCE, &[]),
            element(SEQUENCE, &[]),
            subject,
        ]
        .concat();
        let certificate = element(SEQUENCE, &element(SEQUENCE, &tbs));
        let signed = element(
            SEQUENCE,
            &[element(0x02, &[1]), element(CONTEXT_0, &certificate)].concat(),
        );
        element(
            SEQUENCE,
            &[element(0x06, &[0x2a]), element(CONTEXT_0, &signed)].concat(),
        )
    }

    fn signed(zip: &[u8], der: &[u8]) -> Vec<u8> {
        let length = (der.len() as u32).to_le_bytes();
        [zip, HEADER, &length, der, FOOTER].concat()
    }

    #[test]
    fn a_file_without_a_block_is_unsigned_and_read_whole() {
        let (zip, signature) = split(b"PK\x03\x04zip");
        assert_eq!(zip, b"PK\x03\x04zip");
        assert_eq!(signature, Signature::Unsigned);
    }

    #[test]
    fn a_block_is_split_off_and_its_signer_named_never_checked() {
        let file = signed(b"PKzip", &pkcs7("Example Publisher"));
        let (zip, signature) = split(&file);
        assert_eq!(zip, b"PKzip");
        assert_eq!(
            signature,
            Signature::Signed {
                by: Some("Example Publisher".into()),
                checked: false
            }
        );
    }

    #[test]
    fn a_broken_block_is_invalid_in_words() {
        let mut file = signed(b"PKzip", &pkcs7("x"));
        // One byte of the signature lost: the length no longer holds.
        file.remove(20);
        assert!(
            matches!(split(&file).1, Signature::Invalid { reason } if reason.contains("cut short"))
        );
        let file = signed(b"PKzip", b"not der");
        assert!(
            matches!(split(&file).1, Signature::Invalid { reason } if reason.contains("PKCS#7"))
        );
        let (zip, signature) = split(b"PKzipMCPB_SIG_END");
        assert_eq!(zip.len(), 17);
        assert!(matches!(signature, Signature::Invalid { .. }));
    }
}
