package imagingtest

import "encoding/binary"

// TIFF field types and the tags EXIF writes.
const (
	typeASCII    = 2
	typeShort    = 3
	typeLong     = 4
	typeRational = 5

	tagMake        = 0x010F
	tagOrientation = 0x0112
	tagGPSIFD      = 0x8825
)

type entry struct {
	tag, typ uint16
	count    uint32
	value    []byte // in the entry when at most 4 bytes, else after the IFD
}

// EXIF is a TIFF block as cameras write it: IFD0 with Make and Orientation
// (left out when orientation is 0), and with gps a GPS IFD holding
// latitude and longitude, in the byte order given (II or MM).
func EXIF(orientation int, gps bool, bo binary.AppendByteOrder) []byte {
	mark := "MM"
	if bo == binary.LittleEndian {
		mark = "II"
	}
	ifd0 := []entry{{tagMake, typeASCII, 7, []byte("Tandem\x00")}}
	if orientation != 0 {
		ifd0 = append(ifd0, entry{tagOrientation, typeShort, 1, bo.AppendUint16(nil, uint16(orientation))})
	}
	var gpsIFD []entry
	if gps {
		gpsIFD = []entry{
			{0x0001, typeASCII, 2, []byte("N\x00")},
			{0x0002, typeRational, 3, rationals(bo, 52, 1, 31, 1, 1200, 100)},
			{0x0003, typeASCII, 2, []byte("E\x00")},
			{0x0004, typeRational, 3, rationals(bo, 13, 1, 24, 1, 1800, 100)},
		}
		at := 8 + ifdSize(ifd0) + 12 // the GPS IFD follows IFD0 and its data
		ifd0 = append(ifd0, entry{tagGPSIFD, typeLong, 1, bo.AppendUint32(nil, uint32(at))})
	}
	b := bo.AppendUint16([]byte(mark), 42)
	b = bo.AppendUint32(b, 8)
	b = appendIFD(b, bo, ifd0)
	if gps {
		b = appendIFD(b, bo, gpsIFD)
	}
	return b
}

func rationals(bo binary.AppendByteOrder, v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = bo.AppendUint32(b, x)
	}
	return b
}

// ifdSize is the bytes of an IFD and the values stored after it.
func ifdSize(es []entry) int {
	n := 2 + 12*len(es) + 4
	for _, e := range es {
		if len(e.value) > 4 {
			n += len(e.value) + len(e.value)%2
		}
	}
	return n
}

// appendIFD writes an IFD at the end of b (offsets count from b's start,
// the TIFF header), its long values right after it, and no next IFD.
func appendIFD(b []byte, bo binary.AppendByteOrder, es []entry) []byte {
	data := len(b) + 2 + 12*len(es) + 4
	var tail []byte
	b = bo.AppendUint16(b, uint16(len(es)))
	for _, e := range es {
		b = bo.AppendUint16(b, e.tag)
		b = bo.AppendUint16(b, e.typ)
		b = bo.AppendUint32(b, e.count)
		if len(e.value) <= 4 {
			v := make([]byte, 4)
			copy(v, e.value)
			b = append(b, v...)
			continue
		}
		b = bo.AppendUint32(b, uint32(data+len(tail)))
		tail = append(tail, e.value...)
		if len(e.value)%2 == 1 {
			tail = append(tail, 0)
		}
	}
	b = bo.AppendUint32(b, 0)
	return append(b, tail...)
}
