"""Make one input document for corpus-check's task mode (scripts/corpus-tasks.json).

    python3 scripts/corpus-inputs.py <kind> <output-file>

Kinds: fillable-pdf (a one-page AcroForm with two text fields and a checkbox,
reportlab), text-pdf (two pages of text, reportlab), docx (headings, a
paragraph and a table, python-docx), xlsx (a sheet of figures with a formula,
openpyxl), pptx (one title slide, written part by part with zipfile: no
python-pptx in Debian). The same kind always gives the same content; the
file is made once per task and copied to both sides, so inside and outside
read identical bytes. Debian: apt-get install python3-reportlab python3-docx
python3-openpyxl (and python3-pypdf python3-defusedxml python3-lxml for the
skills' own scripts).
"""

import sys
import zipfile


def fillable_pdf(path):
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(path, pagesize=letter, invariant=1)
    c.setFont("Helvetica", 12)
    c.drawString(72, 720, "Application form")
    c.drawString(72, 680, "Full name")
    c.acroForm.textfield(name="full_name", tooltip="Full name", x=200, y=675, width=300, height=20)
    c.drawString(72, 640, "Date signed")
    c.acroForm.textfield(name="signed_on", tooltip="Date signed", x=200, y=635, width=300, height=20)
    c.drawString(72, 600, "I agree")
    c.acroForm.checkbox(name="agree", tooltip="I agree", x=200, y=595, size=20)
    c.showPage()
    c.save()


def text_pdf(path):
    from reportlab.lib.pagesizes import letter
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(path, pagesize=letter, invariant=1)
    for page in (1, 2):
        c.setFont("Helvetica", 12)
        for i, line in enumerate(["Quarterly report", f"Page {page}", "Revenue 1200", "Costs 800"]):
            c.drawString(72, 720 - 20 * i, line)
        c.showPage()
    c.save()


def docx(path):
    import docx as d

    doc = d.Document()
    doc.core_properties.author = "corpus-check"
    doc.add_heading("Project plan", level=1)
    doc.add_paragraph("The first phase starts in March and ends in May.")
    doc.add_heading("Budget", level=2)
    table = doc.add_table(rows=3, cols=2)
    for r, (k, v) in enumerate([("Item", "Cost"), ("Design", "1200"), ("Build", "3400")]):
        table.cell(r, 0).text, table.cell(r, 1).text = k, v
    doc.add_paragraph("Questions go to the project office.")
    doc.save(path)


def xlsx(path):
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Sales"
    ws.append(["Region", "Q1", "Q2"])
    for row in [("North", 120, 135), ("South", 98, 110), ("East", 143, 150)]:
        ws.append(row)
    ws["D1"] = "Total"
    for r in range(2, 5):
        ws[f"D{r}"] = f"=B{r}+C{r}"
    wb.save(path)


P = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
CT = "application/vnd.openxmlformats-officedocument.presentationml"
TREE = '<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>{}</p:spTree></p:cSld>'
TITLE = '<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title 1"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>{}</a:t></a:r></a:p></p:txBody></p:sp>'


def rels(*items):
    body = "".join(f'<Relationship Id="rId{i + 1}" Type="{R}/{t}" Target="{target}"/>' for i, (t, target) in enumerate(items))
    return f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{body}</Relationships>'


def pptx(path):
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    theme = f'{head}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Plain"><a:themeElements><a:clrScheme name="Plain"><a:dk1><a:srgbClr val="000000"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="1F1F1F"/></a:dk2><a:lt2><a:srgbClr val="EEEEEE"/></a:lt2><a:accent1><a:srgbClr val="4472C4"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2><a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4><a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6><a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme><a:fontScheme name="Plain"><a:majorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme><a:fmtScheme name="Plain"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst><a:lnStyleLst><a:ln><a:noFill/></a:ln><a:ln><a:noFill/></a:ln><a:ln><a:noFill/></a:ln></a:lnStyleLst><a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst><a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme></a:themeElements></a:theme>'
    parts = {
        "[Content_Types].xml": f'{head}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="{CT}.presentation.main+xml"/><Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="{CT}.slideMaster+xml"/><Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="{CT}.slideLayout+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="{CT}.slide+xml"/><Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/></Types>',
        "_rels/.rels": rels(("officeDocument", "ppt/presentation.xml")),
        "ppt/presentation.xml": f'{head}<p:presentation {P}><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
        "ppt/_rels/presentation.xml.rels": rels(("slideMaster", "slideMasters/slideMaster1.xml"), ("slide", "slides/slide1.xml"), ("theme", "theme/theme1.xml")),
        "ppt/slideMasters/slideMaster1.xml": f'{head}<p:sldMaster {P}>{TREE.format("")}<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>',
        "ppt/slideMasters/_rels/slideMaster1.xml.rels": rels(("slideLayout", "../slideLayouts/slideLayout1.xml"), ("theme", "../theme/theme1.xml")),
        "ppt/slideLayouts/slideLayout1.xml": f'{head}<p:sldLayout {P} type="title">{TREE.format(TITLE.format("Title"))}</p:sldLayout>',
        "ppt/slideLayouts/_rels/slideLayout1.xml.rels": rels(("slideMaster", "../slideMasters/slideMaster1.xml")),
        "ppt/slides/slide1.xml": f'{head}<p:sld {P}>{TREE.format(TITLE.format("Quarterly review"))}</p:sld>',
        "ppt/slides/_rels/slide1.xml.rels": rels(("slideLayout", "../slideLayouts/slideLayout1.xml")),
        "ppt/theme/theme1.xml": theme,
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0)), text)


KINDS = {"fillable-pdf": fillable_pdf, "text-pdf": text_pdf, "docx": docx, "xlsx": xlsx, "pptx": pptx}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit(f"usage: corpus-inputs.py {{{'|'.join(KINDS)}}} <output-file>")
    KINDS[sys.argv[1]](sys.argv[2])
