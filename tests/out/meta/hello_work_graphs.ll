; ModuleID = 'wgc'
target datalayout = "e-m:e-p:32:32-i1:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%"class.RWStructuredBuffer<uint>" = type opaque

@UAV = external constant %"class.RWStructuredBuffer<uint>"

declare void @firstNode()

declare void @secondNode()

declare void @thirdNode()

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.entryPoints = !{!7, !8, !22, !31}
!wgc.spirv.entryPoints = !{!36, !37, !38}

!0 = !{!"wgc 0.1.0"}
!1 = !{i32 1, i32 9}
!2 = !{!"lib", i32 6, i32 9}
!3 = !{null, !4, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.RWStructuredBuffer<uint>"* @UAV, !"UAV", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !6}
!6 = !{i32 1, i32 4}
!7 = !{null, !"", null, !3, null}
!8 = !{void ()* @firstNode, !"firstNode", null, null, !9}
!9 = !{i32 8, i32 15, i32 13, i32 1, i32 15, !10, i32 16, i32 -1, i32 22, !11, i32 20, !12, i32 21, !16, i32 4, !20, i32 5, !21}
!10 = !{!"firstNode", i32 0}
!11 = !{i32 16, i32 1, i32 1}
!12 = !{!13}
!13 = !{i32 1, i32 97, i32 2, !14}
!14 = !{i32 0, i32 8, i32 1, !15, i32 2, i32 4}
!15 = !{i32 0, i32 5, i32 1}
!16 = !{!17}
!17 = !{i32 1, i32 6, i32 2, !18, i32 3, i32 2, i32 0, !19}
!18 = !{i32 0, i32 8, i32 2, i32 4}
!19 = !{!"secondNode", i32 0}
!20 = !{i32 2, i32 1, i32 1}
!21 = !{i32 0}
!22 = !{void ()* @secondNode, !"secondNode", null, null, !23}
!23 = !{i32 8, i32 15, i32 13, i32 3, i32 15, !19, i32 16, i32 -1, i32 20, !24, i32 21, !26, i32 4, !30, i32 5, !21}
!24 = !{!25}
!25 = !{i32 1, i32 33, i32 2, !18}
!26 = !{!27}
!27 = !{i32 1, i32 6, i32 2, !28, i32 3, i32 1, i32 0, !29}
!28 = !{i32 0, i32 4, i32 2, i32 4}
!29 = !{!"thirdNode", i32 0}
!30 = !{i32 1, i32 1, i32 1}
!31 = !{void ()* @thirdNode, !"thirdNode", null, null, !32}
!32 = !{i32 8, i32 15, i32 13, i32 2, i32 15, !29, i32 16, i32 -1, i32 20, !33, i32 4, !35, i32 5, !21}
!33 = !{!34}
!34 = !{i32 1, i32 65, i32 2, !28, i32 3, i32 32}
!35 = !{i32 32, i32 1, i32 1}
!36 = !{void ()* @firstNode, !"firstNode"}
!37 = !{void ()* @secondNode, !"secondNode"}
!38 = !{void ()* @thirdNode, !"thirdNode"}
