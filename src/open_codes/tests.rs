use super::*;

#[test]
fn a_code_opens_once_within_a_minute_and_never_again() {
    let codes = OpenCodes::default();
    let t0 = Instant::now();
    let code = codes.mint(t0).unwrap();
    assert_eq!(code.len(), 48);
    assert!(!codes.redeem("not a code", t0));
    assert!(codes.redeem(&code, t0 + Duration::from_secs(59)));
    assert!(!codes.redeem(&code, t0 + Duration::from_secs(59)), "used");

    let late = codes.mint(t0).unwrap();
    assert!(
        !codes.redeem(&late, t0 + Duration::from_secs(61)),
        "expired"
    );
    assert_ne!(codes.mint(t0).unwrap(), codes.mint(t0).unwrap());
}
